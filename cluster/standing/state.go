package standing

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

// State is what Up records so that Down and Status can find it.
type State struct {
	Name       string         `json:"name"`
	PID        int            `json:"pid"`
	Kubeconfig string         `json:"kubeconfig"`
	Server     string         `json:"server"`
	LogDir     string         `json:"logDir"`
	Components map[string]int `json:"components"`
}

// Dir holds one state file per cluster Up started: STEADYSTATE_STATE_DIR,
// default <tmp>/steadystate-clusters.
type Dir string

func (d Dir) statePath(name string) string { return filepath.Join(string(d), name+".json") }

func (d Dir) writeState(s State) error {
	if err := os.MkdirAll(string(d), 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(d.statePath(s.Name), data)
}

// ErrNotUp means no live `cluster up` owns the named cluster.
var ErrNotUp = errors.New("not up")

// Read returns the state of a live cluster. A state file whose process
// is gone is stale and removed.
func (d Dir) Read(name string) (State, error) {
	data, err := os.ReadFile(d.statePath(name))
	if errors.Is(err, os.ErrNotExist) {
		return State{}, fmt.Errorf("cluster %q is %w (no %s)", name, ErrNotUp, d.statePath(name))
	}
	if err != nil {
		return State{}, err
	}
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return State{}, fmt.Errorf("state file %s does not parse (%v): remove it", d.statePath(name), err)
	}
	if !isUpProcess(s.PID) {
		os.Remove(d.statePath(name))
		return State{}, fmt.Errorf("cluster %q is %w (its process %d is gone)", name, ErrNotUp, s.PID)
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
