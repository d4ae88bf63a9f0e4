package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/steadystate-dev/steadystate/internal/atomicfile"
)

// state is what `cluster up` records so that `down` and `status` can find it.
type state struct {
	Name       string         `json:"name"`
	PID        int            `json:"pid"`
	Kubeconfig string         `json:"kubeconfig"`
	Server     string         `json:"server"`
	LogDir     string         `json:"logDir"`
	Components map[string]int `json:"components"`
}

// stateDir holds one file per cluster started by `cluster up`.
func stateDir() string {
	if dir := env().StateDir; dir != "" {
		return dir
	}
	return filepath.Join(os.TempDir(), "steadystate-clusters")
}

func statePath(name string) string { return filepath.Join(stateDir(), name+".json") }

func writeState(s state) error {
	if err := os.MkdirAll(stateDir(), 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(statePath(s.Name), data)
}

// errNotUp means no live `cluster up` owns the named cluster.
var errNotUp = errors.New("not up")

// readState returns the state of a live cluster. A state file whose process
// is gone is stale and removed.
func readState(name string) (state, error) {
	data, err := os.ReadFile(statePath(name))
	if errors.Is(err, os.ErrNotExist) {
		return state{}, fmt.Errorf("cluster %q is %w (no %s)", name, errNotUp, statePath(name))
	}
	if err != nil {
		return state{}, err
	}
	var s state
	if err := json.Unmarshal(data, &s); err != nil {
		return state{}, fmt.Errorf("state file %s does not parse (%v): remove it", statePath(name), err)
	}
	if !isUpProcess(s.PID) {
		os.Remove(statePath(name))
		return state{}, fmt.Errorf("cluster %q is %w (its process %d is gone)", name, errNotUp, s.PID)
	}
	return s, nil
}

// isUpProcess reports whether pid is alive and is a steadystate process, so
// that `down` never signals an unrelated process that reused the PID.
func isUpProcess(pid int) bool {
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		return false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	args := strings.Split(string(cmdline), "\x00")
	return len(args) > 0 && strings.Contains(filepath.Base(args[0]), "steadystate")
}
