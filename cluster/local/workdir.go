package local

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Temporary folders are named steadystate-<cluster>-<random> and hold an
// owner file with the harness's PID. A harness killed with SIGKILL cannot
// remove its folder (its processes die with it: see startProcess), so each
// new cluster removes the folders whose owner is gone.
const (
	workDirPrefix = "steadystate-"
	ownerFile     = "owner.pid"
)

func newWorkDir(name string) (string, error) {
	sweepStaleWorkDirs()
	dir, err := os.MkdirTemp("", workDirPrefix+name+"-")
	if err != nil {
		return "", fmt.Errorf("create a temporary folder for cluster %s: %w (set TMPDIR to a writable folder)", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

func sweepStaleWorkDirs() {
	matches, _ := filepath.Glob(filepath.Join(os.TempDir(), workDirPrefix+"*"))
	for _, dir := range matches {
		data, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue // not ours, or being created right now
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		os.RemoveAll(dir)
	}
}

func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
