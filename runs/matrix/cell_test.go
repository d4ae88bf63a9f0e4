package matrix

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/reports"
)

// passedReport is a Ginkgo JSON report of one passed spec that judged
// what it declares.
func passedReport(t *testing.T) []byte {
	t.Helper()
	held := types.ReportEntry{Name: verdict.EntryName, Value: types.WrapEntryValue(verdict.Record{Property: catalog.LeaderFailover, Outcome: verdict.Held})}
	data, err := json.Marshal([]types.Report{{SuiteDescription: "Leader election", SpecReports: []types.SpecReport{
		{LeafNodeType: types.NodeTypeIt, LeafNodeText: "fails over", State: types.SpecStatePassed,
			LeafNodeLabels: verdict.Declarations(catalog.LeaderFailover), ReportEntries: types.ReportEntries{held}}}}})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// fakeSuite writes a program that stands in for `steadystate suite`: it
// runs script with the report's path as $REPORT.
func fakeSuite(t *testing.T, script string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "suite.sh")
	prog := "#!/bin/sh\nfor a in \"$@\"; do case $a in -ginkgo.json-report=*) REPORT=${a#-ginkgo.json-report=};; esac; done\n" + script
	if err := os.WriteFile(path, []byte(prog), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestKilledSuiteWithAnOldReportIsAnError: a suite killed before it
// writes its report, in a folder that holds a previous run's passed
// report, is an error naming how it exited and its last log lines, not
// the old run's verdict.
func TestKilledSuiteWithAnOldReportIsAnError(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "leader", "leader-correct", "1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), passedReport(t), 0o644); err != nil {
		t.Fatal(err)
	}
	prog := fakeSuite(t, "echo starting the leader suite\necho the cluster is up\nkill -KILL $$\n")
	cell := reports.Cell{Suite: "leader", Subject: "leader"}
	r := RunCell(t.Context(), CellRun{Cell: cell, Dir: dir, Program: prog})
	kind, detail := cell.Judge(r)
	if kind != reports.Error {
		t.Fatalf("judged %s (%s) with %d spec(s): the previous run's report was read as this run's", kind, detail, len(r.Specs))
	}
	for _, want := range []string{"signal: killed", "without writing its report report.json", `"the cluster is up"`, filepath.Join(dir, "ginkgo.log")} {
		if !strings.Contains(r.Err, want) {
			t.Errorf("error %q does not say %q", r.Err, want)
		}
	}
	if strings.Contains(r.Err, "\n") {
		t.Errorf("error %q spans lines: the matrix prints one per run", r.Err)
	}
}

// TestSuiteThatWritesItsReportIsJudged: the fresh folder and the age
// check let a report written by this run through.
func TestSuiteThatWritesItsReportIsJudged(t *testing.T) {
	fresh := filepath.Join(t.TempDir(), "fresh.json")
	if err := os.WriteFile(fresh, passedReport(t), 0o644); err != nil {
		t.Fatal(err)
	}
	prog := fakeSuite(t, "cp "+fresh+" \"$REPORT\"\nexit 0\n")
	cell := reports.Cell{Suite: "leader", Subject: "leader"}
	r := RunCell(t.Context(), CellRun{Cell: cell, Dir: filepath.Join(t.TempDir(), "1"), Program: prog})
	if kind, detail := cell.Judge(r); kind != reports.Passed {
		t.Errorf("judged %s (%s), want passed", kind, detail)
	}
}

// TestReportOlderThanTheRunIsRefused: a report whose time is before the
// run started is not the run's, whatever the suite's exit status.
func TestReportOlderThanTheRunIsRefused(t *testing.T) {
	dir := t.TempDir()
	report, log := filepath.Join(dir, "report.json"), filepath.Join(dir, "ginkgo.log")
	if err := os.WriteFile(report, passedReport(t), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(log, []byte("ran\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	old := started.Add(-time.Hour)
	if err := os.Chtimes(report, old, old); err != nil {
		t.Fatal(err)
	}
	err := freshReport(report, started, nil, log)
	if err == nil || !strings.Contains(err.Error(), "exit status 0") || !strings.Contains(err.Error(), "is older than the run") {
		t.Errorf("err = %v, want the report refused as older than the run", err)
	}
	if err := os.Chtimes(report, started, started); err != nil {
		t.Fatal(err)
	}
	if err := freshReport(report, started, nil, log); err != nil {
		t.Errorf("a report written as the run started was refused: %v", err)
	}
}

// TestCellIsPassedAsFlags: a run names its cell to the suite by flags,
// each given even when empty, and adds only the run's settings to the
// suite's environment.
func TestCellIsPassedAsFlags(t *testing.T) {
	m := Run{Name: "selftest", Provider: "kind", Refctl: "/bin/refctl", Env: []string{"UPSTREAM_DIR=/up"}}
	bug := &catalog.Bugs[0]
	r := m.CellRun(reports.Cell{Suite: bug.Suite, Subject: bug.Subject, Bug: bug}, "/a/1", 2, nil)
	want := []string{"-steadystate.subject=" + bug.Subject, "-steadystate.bug=" + bug.Name, "-steadystate.subject-file=",
		"-steadystate.artifacts=/a/1", "-steadystate.refctl=/bin/refctl", "-steadystate.kind-cluster=steadystate-selftest-2"}
	if !slices.Equal(r.Identity, want) {
		t.Errorf("identity %q, want %q", r.Identity, want)
	}
	if !slices.Equal(r.Env, []string{"UPSTREAM_DIR=/up"}) {
		t.Errorf("environment %q, want the run's settings only", r.Env)
	}
	r = m.CellRun(reports.Cell{Suite: "leader", Subject: "crmanager", SubjectFile: "/f/crmanager.yaml"}, "/a/2", 1, nil)
	if !slices.Contains(r.Identity, "-steadystate.subject=") || !slices.Contains(r.Identity, "-steadystate.subject-file=/f/crmanager.yaml") {
		t.Errorf("a subject file's cell: identity %q, want an empty subject and the file", r.Identity)
	}
}

// The suite gets the run's redaction key in its environment, the one
// this process hashes with: the suites of one run hash equal values
// equal.
func TestSuiteGetsTheRunsKey(t *testing.T) {
	fresh := filepath.Join(t.TempDir(), "fresh.json")
	if err := os.WriteFile(fresh, passedReport(t), 0o644); err != nil {
		t.Fatal(err)
	}
	_, key, _ := strings.Cut(oracle.KeyEnviron(), "=")
	prog := fakeSuite(t, "[ \"$"+oracle.KeyEnv+"\" = "+key+" ] || exit 3\ncp "+fresh+" \"$REPORT\"\n")
	cell := reports.Cell{Suite: "leader", Subject: "leader"}
	r := RunCell(t.Context(), CellRun{Cell: cell, Dir: filepath.Join(t.TempDir(), "1"), Program: prog})
	if kind, detail := cell.Judge(r); kind != reports.Passed {
		t.Errorf("judged %s (%s): the suite did not get the run's key", kind, detail)
	}
}
