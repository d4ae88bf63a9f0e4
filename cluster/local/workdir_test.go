package local

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

func TestNewWorkDirSweepsFoldersOfDeadHarnesses(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	// A PID that surely belongs to no process: one that just exited.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := cmd.ProcessState.Pid()
	stale := filepath.Join(os.TempDir(), workDirPrefix+"old-1")
	live := filepath.Join(os.TempDir(), workDirPrefix+"live-1")
	foreign := filepath.Join(os.TempDir(), workDirPrefix+"foreign")
	for dir, owner := range map[string]string{stale: strconv.Itoa(dead), live: strconv.Itoa(os.Getpid()), foreign: ""} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if owner != "" {
			if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(owner), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	dir, err := newWorkDir("sweep")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("folder of dead harness %d was not removed", dead)
	}
	for _, keep := range []string{live, foreign} {
		if _, err := os.Stat(keep); err != nil {
			t.Errorf("%s was removed: %v", keep, err)
		}
	}
}
