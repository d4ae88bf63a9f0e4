package local

import (
	"strings"
	"testing"
)

func TestRestartControllerManager(t *testing.T) {
	b := requireBinaries(t)
	c := startCluster(t, Options{Name: "restart", BinDir: binDirOf(b)})
	before := c.PIDs()[ControllerManager]
	if err := c.RestartControllerManager(t.Context()); err != nil {
		t.Fatalf("RestartControllerManager: %v", err)
	}
	after := c.PIDs()[ControllerManager]
	if after == 0 || after == before {
		t.Errorf("kube-controller-manager's PID went from %d to %d, want a new running process", before, after)
	}

	bare := startCluster(t, Options{Name: "restart-bare", BinDir: binDirOf(b), Controllers: []string{}})
	if err := bare.RestartControllerManager(t.Context()); err == nil || !strings.Contains(err.Error(), "runs no kube-controller-manager") {
		t.Errorf("restarting a cluster with no controller manager: %v, want it refused", err)
	}
}
