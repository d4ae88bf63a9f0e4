package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/internal/config"
	"github.com/steadystate-dev/steadystate/reports"
)

// results keeps a run's matrix as a set stamped with the commit and the
// command, which the results page is generated from; a bad name is a
// usage error.
func TestResultsKeepsARunAsASet(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"results", "--name", "leader", "--command", "steadystate selftest --suites leader", "--dir", dir, "../../reports/testdata/leader-run"}
	if err := run(t.Context(), config.Settings{}, args, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	sets, err := reports.ReadResultSets(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, ok := sets["leader"]
	if !ok || s.Commit == "" || s.Command != "steadystate selftest --suites leader" || len(s.Rows) == 0 {
		t.Errorf("set %+v", s)
	}
	if _, err := os.Stat(filepath.Join(dir, "leader.json")); err != nil {
		t.Error(err)
	}
	err = run(t.Context(), config.Settings{}, []string{"results", "--name", "Self Test", "--command", "x", "--dir", dir, "."}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "lower-case name") {
		t.Errorf("a bad name: %v", err)
	}
}
