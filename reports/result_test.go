package reports

import (
	"errors"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// Every result word has one exit code: a finding wins over an error in
// the same run, a run that judged nothing is an error, and a pass with
// gaps fails only when asked to, with a code of its own.
func TestResultWordsAndTheirExitCodes(t *testing.T) {
	held := declares(spec("converges", types.SpecStatePassed, "", rec(catalog.LostCreateRecovered, verdict.Held)), catalog.LostCreateRecovered)
	broken := declares(spec("overshoots", types.SpecStateFailed, "broken", rec(catalog.LostNoOvershoot, verdict.Broken)), catalog.LostNoOvershoot)
	errored := spec("set-up", types.SpecStateFailed, "create the spec's namespace: connection refused")
	skipped := declares(spec("storm", types.SpecStateSkipped, "no storm on --provider existing"), catalog.LostAfterStorm)
	cell := func(runs ...Run) Cell {
		return Cell{Suite: "lostevents", Subject: "web", MaySkip: true, Conformance: true, Runs: runs}
	}
	for _, tc := range []struct {
		name       string
		cells      []Cell
		notRun     []string
		word, line string
		code, gaps int // the exit code, and with --fail-on-gaps
	}{
		{"passed", []Cell{cell(run(t, held))}, nil, ResultPassed, "PASSED", 0, 0},
		{"a skipped spec of a bound capability", []Cell{cell(run(t, held, skipped))}, nil, ResultWithGaps,
			"PASSED WITH GAPS — 1 property not judged (skipped: lostevents/converges-after-storm)", 0, 4},
		{"a bound capability not run", []Cell{cell(run(t, held))}, []string{"leaderElected"}, ResultWithGaps,
			"PASSED WITH GAPS — capabilities not run: leaderElected", 0, 4},
		{"a finding", []Cell{cell(run(t, held, broken))}, nil, ResultNotPassed, "NOT PASSED — 1 broken (findings), 0 error", 1, 1},
		{"an error", []Cell{cell(run(t, held, errored))}, nil, ResultError, "ERROR — 0 broken (findings), 1 error", 3, 3},
		{"a finding beside an error", []Cell{cell(run(t, broken, errored))}, nil, ResultNotPassed, "NOT PASSED — 1 broken (findings), 1 error", 1, 1},
		{"a finding in one suite, an error in another", []Cell{cell(run(t, broken)), cell(run(t, errored))}, []string{"leaderElected"}, ResultNotPassed,
			"NOT PASSED — 1 broken (findings), 1 error", 1, 1},
		{"a run that left no report", []Cell{cell(Run{Err: "the suite exited (signal: killed) without writing its report"})}, nil, ResultError,
			"ERROR — 0 broken (findings), 1 error", 3, 3},
		{"every spec skipped", []Cell{cell(run(t, skipped))}, nil, ResultError,
			"ERROR — nothing judged: lostevents: not passed 1/1 (every spec skipped: no storm on --provider existing)", 3, 3},
		{"no suite", nil, nil, ResultError, "ERROR — no suite ran: the subject binds no capability", 3, 3},
	} {
		word, detail := ConformanceResult(tc.cells, tc.notRun...)
		if word != tc.word || Line(word, detail) != tc.line {
			t.Errorf("%s: %s, want %s", tc.name, Line(word, detail), tc.line)
		}
		for failOnGaps, want := range map[bool]int{false: tc.code, true: tc.gaps} {
			if got := cli.ExitCode(Fail(word, failOnGaps, "not passed")); got != want {
				t.Errorf("%s (fail on gaps %v): exit %d, want %d", tc.name, failOnGaps, got, want)
			}
		}
		// One run's specs read the same, where a run's specs say it.
		if len(tc.cells) == 1 && len(tc.notRun) == 0 && tc.cells[0].Runs[0].Err == "" {
			if w, _ := Result(tc.cells[0].Runs[0].Specs); w != word {
				t.Errorf("%s: the run's specs say %s, the cells %s", tc.name, w, word)
			}
		}
	}
}

// A self-test's result: a bug missed is its finding, even beside a cell
// that ended in an error; an error alone is an error.
func TestMatrixResult(t *testing.T) {
	correct := Cell{Suite: "lostevents", Subject: "workload"}
	buggy := Cell{Suite: "lostevents", Subject: "workload", Bug: &bug}
	healthy := spec("recovers", types.SpecStatePassed, "", rec(catalog.LostCreateRecovered, verdict.Held))
	caught := spec("recovers", types.SpecStateFailed, "broken", rec(catalog.LostCreateRecovered, verdict.Broken))
	errored := spec("recovers", types.SpecStateFailed, "create the spec's namespace: connection refused")
	with := func(c Cell, runs ...Run) Cell { c.Runs = runs; return c }
	for _, tc := range []struct {
		name  string
		cells []Cell
		word  string
	}{
		{"as intended", []Cell{with(correct, run(t, healthy)), with(buggy, run(t, caught))}, ResultPassed},
		{"a bug missed", []Cell{with(correct, run(t, healthy)), with(buggy, run(t, healthy))}, ResultNotPassed},
		{"a false alarm", []Cell{with(correct, run(t, caught)), with(buggy, run(t, caught))}, ResultNotPassed},
		{"a bug missed beside an error", []Cell{with(correct, run(t, errored)), with(buggy, run(t, healthy))}, ResultNotPassed},
		{"an error", []Cell{with(correct, run(t, errored)), with(buggy, run(t, caught))}, ResultError},
		{"a cell not run", []Cell{correct}, ResultError},
	} {
		if word, detail := MatrixResult(tc.cells); word != tc.word {
			t.Errorf("%s: %s", tc.name, Line(word, detail))
		}
	}
	err := Fail(ResultNotPassed, false, "the self-test failed")
	if !errors.Is(err, cli.ErrFinding) || err.Error() != "the self-test failed" {
		t.Errorf("Fail(NOT PASSED) = %v", err)
	}
}
