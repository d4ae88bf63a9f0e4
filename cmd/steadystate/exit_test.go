package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/reports"
	"github.com/steadystate-dev/steadystate/runs/conformance"
	"github.com/steadystate-dev/steadystate/runs/matrix"
)

// The recorded leader run's specs, edited into each ending a run can
// have (conformRun holds the follower's shutdown, passed, and the
// partition, broken).
var (
	dropPartition = func(reps []types.Report) {
		var kept []types.SpecReport
		for _, s := range reps[0].SpecReports {
			if !strings.Contains(s.LeafNodeText, "partitioned") {
				kept = append(kept, s)
			}
		}
		reps[0].SpecReports = kept
	}
	// The follower's spec failed outside any property: its set-up.
	followerSetUpFailed = func(reps []types.Report) {
		for i, s := range reps[0].SpecReports {
			if s.LeafNodeType == types.NodeTypeIt && strings.HasSuffix(followerSpec, s.LeafNodeText) {
				reps[0].SpecReports[i].State = types.SpecStateFailed
				reps[0].SpecReports[i].Failure = types.Failure{Message: "create the spec's namespace: connection refused"}
			}
		}
	}
	// A spec skipped, though the subject binds its capability.
	skippedSpec = func(reps []types.Report) {
		var s types.SpecReport
		for _, r := range reps[0].SpecReports {
			if r.LeafNodeType == types.NodeTypeIt {
				s = r
			}
		}
		s.LeafNodeText, s.State, s.ReportEntries = "fails over within the lease bound after the holder is killed", types.SpecStateSkipped, nil
		s.Failure = types.Failure{Message: "no process to kill on this provider"}
		reps[0].SpecReports = append(reps[0].SpecReports, s)
	}
)

// recordedEnding is a recorded run as it ended, and what every command
// that judges it says: the result line and the exit code, without and
// with --fail-on-gaps.
type recordedEnding struct {
	name string
	edit func([]types.Report)
	// steady says the subject binds reconciledObjects beside leaderElected
	// (the reports are the leader suite's); only is conform's
	// --capabilities; noReport adds the reconcile suite's run, which
	// left no report.
	steady   bool
	only     []string
	noReport bool
	// result and code are conform's and verify's (a bundle's result
	// names the capabilities not run); report's, over the report alone,
	// differ only where the capabilities decide.
	result           string
	code, gapsCode   int
	reportCode       int
	reportGapsCode   int
	reportResultWord string
}

var recordedEndings = []recordedEnding{
	{"passed", dropPartition, false, nil, false, "PASSED", 0, 0, 0, 0, reports.ResultPassed},
	{"passed with a capability not run", dropPartition, true, []string{"leaderElected"}, false,
		"PASSED WITH GAPS — capabilities not run: reconciledObjects", 0, 4, 0, 0, reports.ResultPassed},
	{"passed with a spec skipped", func(reps []types.Report) { dropPartition(reps); skippedSpec(reps) }, false, nil, false,
		`PASSED WITH GAPS — 1 property not judged (skipped: "A leader-elected manager fails over within the lease bound after the holder is killed")`, 0, 4, 0, 4, reports.ResultWithGaps},
	{"broken", nil, false, nil, false, "NOT PASSED — 1 broken (findings), 0 error", 1, 1, 1, 1, reports.ResultNotPassed},
	{"an error", func(reps []types.Report) { dropPartition(reps); followerSetUpFailed(reps) }, false, nil, false,
		"ERROR — 0 broken (findings), 1 error", 3, 3, 3, 3, reports.ResultError},
	{"broken beside an error", followerSetUpFailed, false, nil, false, "NOT PASSED — 1 broken (findings), 1 error", 1, 1, 1, 1, reports.ResultNotPassed},
	{"a suite that left no report", dropPartition, true, nil, true, "ERROR — 0 broken (findings), 1 error", 3, 3, 0, 0, reports.ResultPassed},
}

var digestPrinted = regexp.MustCompile(`manifest digest sha256:([0-9a-f]{64})`)

// conform, verify and report agree on every ending of a recorded run: the
// result conform concludes, its exit code, and, on the bundle conform
// wrote, verify's last line and exit code; report's on the run's report.
// Each also with --fail-on-gaps, which fails only a pass with gaps, with
// its own code.
func TestExitCodesOfRecordedEndings(t *testing.T) {
	for _, tc := range recordedEndings {
		t.Run(tc.name, func(t *testing.T) {
			dir := conformRun(t, bundleRun{report: tc.edit})
			for failOnGaps, want := range map[bool]int{false: tc.code, true: tc.gapsCode} {
				out, bundlePath, err := conclude(t, dir, tc, failOnGaps)
				last := lastLine(out)
				if got := cli.ExitCode(err); got != want || last != "conform: "+tc.result {
					t.Errorf("conform (fail on gaps %v): exit %d, last line %q; want %d, %q; err %v", failOnGaps, got, last, want, "conform: "+tc.result, err)
				}
				d := digestPrinted.FindStringSubmatch(out)
				if d == nil {
					t.Fatalf("conform printed no digest:\n%s", out)
				}
				args := []string{"--digest", d[1], bundlePath}
				if failOnGaps {
					args = append(args, "--fail-on-gaps")
				}
				vout, verr, code := runCode(t, append([]string{"verify"}, args...)...)
				if code != want || lastLine(vout) != "verify: "+tc.result || !strings.Contains(vout, "is intact and its verdicts stand") {
					t.Errorf("verify %s: exit %d, last line %q; want %d, %q\n%s%s", strings.Join(args, " "), code, lastLine(vout), want, "verify: "+tc.result, vout, verr)
				}
			}
			report := filepath.Join(dir, runDir, "report.json")
			for failOnGaps, want := range map[bool]int{false: tc.reportCode, true: tc.reportGapsCode} {
				args := []string{"report", report}
				if failOnGaps {
					args = []string{"report", "--fail-on-gaps", report}
				}
				out, stderr, code := runCode(t, args...)
				if code != want || !strings.Contains(lastLine(out), "e2e: "+tc.reportResultWord) {
					t.Errorf("%s: exit %d, want %d, result %s:\n%s%s", strings.Join(args, " "), code, want, tc.reportResultWord, out, stderr)
				}
			}
		})
	}
}

// conclude concludes a conformance run of the recorded subject whose
// cells' runs are the reports below dir, as conform does once its suites
// ran: it writes the bundle and returns what it printed, the bundle and
// the run's failure.
func conclude(t *testing.T, dir string, tc recordedEnding, failOnGaps bool) (string, string, error) {
	t.Helper()
	file := "testdata/recorded-leader.yaml"
	if tc.steady {
		file = "testdata/recorded-leader-steady.yaml"
	}
	subject, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	c := conformance.Run{Subject: subject, Out: filepath.Join(t.TempDir(), "conformance.tar.gz"), Provider: "local", Kubernetes: "v1.36.3",
		Only: tc.only, FailOnGaps: failOnGaps}
	c.Matrix.Root = dir
	if err := c.Load(context.Background(), io.Discard); err != nil {
		t.Fatal(err)
	}
	reps, err := verdict.ReadReport(filepath.Join(dir, runDir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	cell := reports.Cell{Suite: "leader", Subject: "recorded-leader", SubjectFile: subject, MaySkip: true, Conformance: true,
		Runs: []reports.Run{{Specs: verdict.Specs(reps[0]), Dir: filepath.Join(dir, runDir)}}}
	cells := []reports.Cell{cell}
	if tc.noReport {
		cells = append(cells, reports.Cell{Suite: "steadystate", Subject: "recorded-leader", SubjectFile: subject, MaySkip: true, Conformance: true,
			Runs: []reports.Run{{Err: "the suite exited (signal: killed) without writing its report"}}})
	}
	var out bytes.Buffer
	err = c.Conclude(cells, runStarted, &out)
	return out.String(), c.Out, err
}

// runCode runs steadystate with args and returns its stdout, stderr and
// exit code.
func runCode(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := command(t, t.TempDir(), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return stdout.String(), stderr.String(), exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), 0
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// A self-test's or an upstream matrix's cells: a bug caught passes; a
// correct mode that broke a property (a false alarm) and a bug missed are
// findings, even beside a cell that ended in an error; an error alone is
// an error.
func TestMatrixExitCodes(t *testing.T) {
	reps, err := verdict.ReadReport("../../reports/testdata/leader-run/leader/ignore-lost-lease/1/report.json")
	if err != nil {
		t.Fatal(err)
	}
	bug, ok := catalog.Lookup("ignore-lost-lease")
	if !ok {
		t.Fatal("no seeded bug ignore-lost-lease")
	}
	specs := func(edit func([]types.Report)) []verdict.Spec {
		var c []types.Report
		for _, r := range reps {
			r.SpecReports = append([]types.SpecReport(nil), r.SpecReports...)
			c = append(c, r)
		}
		if edit != nil {
			edit(c)
		}
		return verdict.Specs(c[0])
	}
	caught := reports.Cell{Suite: "leader", Subject: "leader", Bug: &bug, Runs: []reports.Run{{Specs: specs(nil)}}}
	missed := reports.Cell{Suite: "leader", Subject: "leader", Bug: &bug, Runs: []reports.Run{{Specs: specs(dropPartition)}}}
	falseAlarm := reports.Cell{Suite: "leader", Subject: "leader", Runs: []reports.Run{{Specs: specs(nil)}}}
	failed := reports.Cell{Suite: "leader", Subject: "leader", Runs: []reports.Run{{Specs: specs(func(r []types.Report) { dropPartition(r); followerSetUpFailed(r) })}}}
	for _, tc := range []struct {
		name  string
		cells []reports.Cell
		code  int
		word  string
	}{
		{"a bug caught", []reports.Cell{caught}, 0, reports.ResultPassed},
		{"a bug missed", []reports.Cell{caught, missed}, 1, reports.ResultNotPassed},
		{"a false alarm", []reports.Cell{falseAlarm}, 1, reports.ResultNotPassed},
		{"a bug missed beside an error", []reports.Cell{failed, missed}, 1, reports.ResultNotPassed},
		{"an error", []reports.Cell{caught, failed}, 3, reports.ResultError},
	} {
		var out bytes.Buffer
		err := matrix.Failure("selftest", "self-test", tc.cells, &out)
		if got := cli.ExitCode(err); got != tc.code || !strings.HasPrefix(lastLine(out.String()), "selftest: "+tc.word) {
			t.Errorf("%s: exit %d, want %d; printed %q", tc.name, got, tc.code, out.String())
		}
	}
}
