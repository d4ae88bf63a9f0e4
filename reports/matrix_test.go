package reports

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// spec is an It node's report with property records attached as a suite
// attaches them.
func spec(text string, state types.SpecState, failure string, records ...verdict.Record) types.SpecReport {
	r := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: text, State: state, RunTime: time.Second}
	if failure != "" {
		r.Failure = types.Failure{Message: failure, Location: types.CodeLocation{FileName: "/src/suites/x/x_test.go", LineNumber: 42}}
	}
	for _, rec := range records {
		r.ReportEntries = append(r.ReportEntries, types.ReportEntry{Name: verdict.EntryName, Value: types.WrapEntryValue(rec)})
	}
	return r
}

func rec(p verdict.Property, o verdict.Outcome) verdict.Record {
	r := verdict.Record{Property: p, Outcome: o}
	if o != verdict.Held {
		r.Reason = "as recorded"
	}
	return r
}

// run round-trips a suite report through Ginkgo's JSON form, as the
// self-test reads it from --json-report.
func run(t *testing.T, specs ...types.SpecReport) Run {
	t.Helper()
	rep := types.Report{SuiteDescription: "Lost events", SuiteSucceeded: true, SpecReports: specs, SuiteConfig: types.SuiteConfig{RandomSeed: 7}}
	data, err := json.Marshal([]types.Report{rep})
	if err != nil {
		t.Fatal(err)
	}
	var back []types.Report
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	return Run{Specs: verdict.Specs(back[0]), Seed: back[0].SuiteConfig.RandomSeed}
}

// bug is a seeded bug declared to break one property.
var bug = catalog.Bug{Name: "b", Component: "workload", Subject: "workload", Suite: "lostevents", Breaks: []string{catalog.LostCreateRecovered.ID}}

func TestJudgeFromRecordedReports(t *testing.T) {
	correct := Cell{Suite: "lostevents", Subject: "workload"}
	buggy := Cell{Suite: "lostevents", Subject: "workload", Bug: &bug}
	held := func(p verdict.Property) verdict.Record { return rec(p, verdict.Held) }
	healthy := spec("recovers", types.SpecStatePassed, "", held(catalog.EvidenceComplete), held(catalog.LostCreateRecovered), held(catalog.LostNoOvershoot))
	caught := spec("recovers", types.SpecStateFailed, "convergence lostevents/recovers-lost-create broken: as recorded",
		held(catalog.EvidenceComplete), rec(catalog.LostCreateRecovered, verdict.Broken), held(catalog.LostNoOvershoot))
	beforeSuite := types.SpecReport{LeafNodeType: types.NodeTypeSynchronizedBeforeSuite, State: types.SpecStateFailed,
		Failure: types.Failure{Message: "bring up the local cluster: Timed out after 180.000s."}}

	for _, tc := range []struct {
		name   string
		cell   Cell
		run    Run
		kind   string
		detail string
	}{
		{"a correct mode whose properties held", correct, run(t, healthy), Passed, ""},
		{"a bug caught on its declared property", buggy, run(t, healthy, caught), Caught, "lostevents/recovers-lost-create"},
		{"a subject that exits at start", buggy, run(t, spec("recovers", types.SpecStateFailed,
			`subject file w.yaml (subject "w"): run.command: replica w-0 exited at start: exit status 3`)), Error, "failed outside any property: subject file w.yaml"},
		{"a setup that times out", buggy, run(t, beforeSuite, spec("recovers", types.SpecStateSkipped, "")), Error, "Timed out after 180.000s"},
		{"a panic", buggy, run(t, spec("recovers", types.SpecStatePanicked, "runtime error: invalid memory address")), Error, "panicked: runtime error"},
		{"a spec that timed out", buggy, run(t, spec("recovers", types.SpecStateTimedout, "A node timeout occurred")), Error, "timedout"},
		{"an assumption that did not hold", buggy, run(t, spec("recovers", types.SpecStateFailed, "error: assumption",
			rec(catalog.LostEventWithheld, verdict.Broken), rec(catalog.LostCreateRecovered, verdict.NotEvaluated))), Error, "assumption lostevents/event-withheld did not hold"},
		{"evidence with holes", buggy, run(t, spec("recovers", types.SpecStateFailed, "error: assumption",
			rec(catalog.EvidenceComplete, verdict.Broken), rec(catalog.LostCreateRecovered, verdict.Broken))), Error, "evidence/complete"},
		{"a mode that breaks another property", buggy, run(t, spec("recovers", types.SpecStateFailed, "invariant ...",
			held(catalog.LostCreateRecovered), rec(catalog.LostNoOvershoot, verdict.Broken))), WrongProperty, "broke lostevents/no-overshoot, must break exactly lostevents/recovers-lost-create"},
		{"a mode that breaks one property too many", buggy, run(t, spec("recovers", types.SpecStateFailed, "...",
			rec(catalog.LostCreateRecovered, verdict.Broken), rec(catalog.LostNoOvershoot, verdict.Broken))), WrongProperty, "broke lostevents/no-overshoot, lostevents/recovers-lost-create"},
		{"a bug mode where everything held", buggy, run(t, healthy), Missed, ""},
		{"a correct mode with a skipped spec", correct, run(t, healthy, spec("storm", types.SpecStateSkipped, "subject w is not a scalable workload")), NotPassed, "storm skipped: subject w is not a scalable workload"},
		{"a correct mode that broke a property", correct, run(t, caught), FalseAlarm, "lostevents/recovers-lost-create"},
		{"a correct mode whose spec passed with an unjudged property", correct, run(t, spec("recovers", types.SpecStatePassed, "", rec(catalog.LostCreateRecovered, verdict.NotEvaluated))), Error, "not-evaluated"},
		{"a run that left no report", buggy, Run{Err: "no report"}, Error, "no report"},
		{"a run with no spec", correct, run(t), Error, "no spec ran"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kind, detail := tc.cell.Judge(tc.run)
			if kind != tc.kind || !strings.Contains(detail, tc.detail) {
				t.Errorf("Judge = %q %q, want %q containing %q; specs %+v", kind, detail, tc.kind, tc.detail, tc.run.Specs)
			}
			if tc.run.Err == "" && tc.run.Seed != 7 {
				t.Errorf("seed = %d, want the report's", tc.run.Seed)
			}
		})
	}
}

func TestVerdictNeedsEveryRun(t *testing.T) {
	caught := run(t, spec("recovers", types.SpecStateFailed, "...", rec(catalog.LostCreateRecovered, verdict.Broken)))
	missed := run(t, spec("recovers", types.SpecStatePassed, "", rec(catalog.LostCreateRecovered, verdict.Held)))
	c := Cell{Suite: "lostevents", Subject: "workload", Bug: &bug, Runs: []Run{caught, caught}}
	if v, ok := c.Verdict(); !ok || v != "caught: lostevents/recovers-lost-create" {
		t.Errorf("verdict = %q %v", v, ok)
	}
	c.Runs = append(c.Runs, missed)
	if v, ok := c.Verdict(); ok || !strings.Contains(v, "caught 2/3") || !strings.Contains(v, "missed 1/3") {
		t.Errorf("a bug missed once must fail the cell: %q %v", v, ok)
	}
	var out bytes.Buffer
	if PrintMatrix(&out, "selftest", []Cell{{Suite: "lostevents", Subject: "workload", Runs: []Run{missed}}, c}) {
		t.Error("a flaky cell must fail the matrix")
	}
	if !strings.HasSuffix(out.String(), "selftest: 1 as intended, 1 not\n") {
		t.Errorf("matrix:\n%s", out.String())
	}
}

// Figures are listed run by run; one the same in every run (a bound) is
// said once, with the number of runs.
func TestFiguresAreListedRunByRun(t *testing.T) {
	r := func(took string) Run {
		rec := rec(catalog.LostCreateRecovered, verdict.Held)
		rec.Figures = map[string]string{"recovery": took, "bound": "45s"}
		return run(t, spec("recovers", types.SpecStatePassed, "", rec))
	}
	var out bytes.Buffer
	PrintFigures(&out, []Cell{{Suite: "lostevents", Subject: "kruise", Runs: []Run{r("40.0s"), r("40.1s")}}})
	for _, want := range []string{"recovers  lostevents/recovers-lost-create  bound     45s (all 2 runs)", "recovery  40.0s, 40.1s"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("figures do not say %q:\n%s", want, out.String())
		}
	}
}

// A property three specs judge has a row per spec, each with one figure
// per run: before, its one row listed every spec's bound in turn, which
// read as three runs.
func TestFiguresOfAPropertySeveralSpecsJudge(t *testing.T) {
	judged := func(name, bound string) types.SpecReport {
		rec := rec(catalog.LostNoOvershoot, verdict.Held)
		rec.Figures = map[string]string{"bound": bound}
		return spec(name, types.SpecStatePassed, "", rec)
	}
	var out bytes.Buffer
	PrintFigures(&out, []Cell{{Suite: "lostevents", Subject: "web", Runs: []Run{run(t, judged("storm", "5s"), judged("stall", "5s"), judged("relist", "5s"))}}})
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("want a header and a row per spec:\n%s", out.String())
	}
	for _, row := range lines[1:] {
		if f := strings.Fields(row); f[len(f)-2] != "bound" || f[len(f)-1] != "5s" {
			t.Errorf("row %q: want one figure (one run)", row)
		}
	}
}

func TestCellsComeFromTheCatalog(t *testing.T) {
	cells := Cells()
	correct := 0
	for _, s := range catalog.Suites {
		correct += len(s.Subjects())
	}
	if len(cells) != correct+len(catalog.Bugs) {
		t.Fatalf("%d cells for %d suite subjects and %d bugs", len(cells), correct, len(catalog.Bugs))
	}
	seen := map[string]bool{}
	for _, c := range cells {
		if c.Bug != nil && (c.Bug.Suite != c.Suite || c.Bug.Subject != c.Subject) {
			t.Errorf("cell %s x %s/%s: the bug belongs to %s x %s", c.Suite, c.Subject, c.Mode(), c.Bug.Suite, c.Bug.Subject)
		}
		// A run's folder is <suite>/<subject>-<mode>: one cell each.
		if id := c.Suite + "/" + c.Subject + "-" + c.Mode(); seen[id] {
			t.Errorf("two cells %s", id)
		} else {
			seen[id] = true
		}
	}
}

// The reconcile suite runs two reference subjects, each with its own
// correct cell; --subjects narrows the matrix to some of them, and the
// modes still select.
func TestSelectBySubject(t *testing.T) {
	cells, err := SelectOf([]string{"reconcile"}, nil, []string{"correct"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cells {
		got = append(got, c.Subject)
	}
	if strings.Join(got, ",") != "composite,stack,stack-unwatched,stack-templated" {
		t.Errorf("the reconcile suite's correct cells are %v, want composite, stack and the stack's two other bindings", got)
	}
	cells, err = SelectOf(nil, []string{"stack"}, []string{"correct", "watch-never-back", "status-hot-loop"})
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, c := range cells {
		got = append(got, c.Subject+"/"+c.Mode())
	}
	if strings.Join(got, ",") != "stack/correct,stack/watch-never-back" {
		t.Errorf("--subjects stack selected %v", got)
	}
	if _, err := SelectOf(nil, []string{"stack"}, []string{"status-hot-loop"}); err == nil || err.Error() != "subjects stack and modes status-hot-loop select no cell of the matrix" {
		t.Errorf("a bug of another subject: %v", err)
	}
	if _, err := SelectOf([]string{"leader"}, []string{"stack"}, []string{"correct"}); err == nil || err.Error() != "suites leader, subjects stack and modes correct select no cell of the matrix" {
		t.Errorf("a subject the suite does not run: %v", err)
	}
}

// TestMaySkipNeedsOneSpecThatRan: a subject file's cell may skip specs it
// binds nothing for, but not all of them; a reference cell may skip none.
func TestMaySkipNeedsOneSpecThatRan(t *testing.T) {
	skipped := spec("samename", types.SpecStateSkipped, "subject files bind no external name")
	passed := spec("blocked", types.SpecStatePassed, "", rec(catalog.FgDeletingStatus, verdict.Held))
	c := Cell{Suite: "foreground", Subject: "crossplane", MaySkip: true}
	if kind, detail := c.Judge(run(t, skipped, passed)); kind != PassedWithGaps || detail != `1 property not judged (skipped: "samename")` {
		t.Errorf("a skip beside a passed spec: %s %q", kind, detail)
	}
	if kind, detail := c.Judge(run(t, skipped)); kind != NotPassed || !strings.Contains(detail, "every spec skipped") {
		t.Errorf("only skips: %s %s", kind, detail)
	}
	c.MaySkip = false
	if kind, _ := c.Judge(run(t, skipped, passed)); kind != NotPassed {
		t.Errorf("a reference cell with a skip: %s", kind)
	}
}

// A broken property of a correct mode is a false alarm; of a conformance
// cell, whose correctness nobody knows, a finding.
func TestConformanceCellsBreakWithoutFalseAlarms(t *testing.T) {
	broken := spec("one writer", types.SpecStateFailed, "invariant broken", rec(catalog.LeaderOneWriter, verdict.Broken))
	c := Cell{Suite: "leader", Subject: "leader"}
	if kind, _ := c.Judge(run(t, broken)); kind != FalseAlarm {
		t.Errorf("a correct mode that broke a property: %s, want %s", kind, FalseAlarm)
	}
	c = Cell{Suite: "leader", Subject: "web", SubjectFile: "/x/web.yaml", MaySkip: true, Conformance: true}
	if kind, detail := c.Judge(run(t, broken)); kind != Broken || detail != catalog.LeaderOneWriter.ID {
		t.Errorf("a conformance cell that broke a property: %s %s, want %s %s", kind, detail, Broken, catalog.LeaderOneWriter.ID)
	}
}

func TestNoFiguresPrintNothing(t *testing.T) {
	var out bytes.Buffer
	PrintFigures(&out, []Cell{{Suite: "leader", Subject: "leader"}})
	if out.Len() != 0 {
		t.Errorf("no figures printed %q", out.String())
	}
}

// The conformance summary: one row per spec, and the result.
func TestWriteConformance(t *testing.T) {
	held := func(p verdict.Property) verdict.Record { return rec(p, verdict.Held) }
	good := Cell{Suite: "lostevents", Subject: "web", SubjectFile: "/x/web.yaml", MaySkip: true, Runs: []Run{run(t,
		spec("converges", types.SpecStatePassed, "", held(catalog.EvidenceComplete), held(catalog.LostLateEvents)))}}
	bad := Cell{Suite: "leader", Subject: "web", SubjectFile: "/x/web.yaml", MaySkip: true, Runs: []Run{run(t,
		spec("one writer", types.SpecStateFailed, "invariant broken", held(catalog.EvidenceComplete), rec(catalog.LeaderOneWriter, verdict.Broken)))}}
	var b strings.Builder
	if !WriteConformance(&b, "web", [][2]string{{"provider", "local"}}, []Cell{good}) || !strings.Contains(b.String(), "- result: **PASSED**\n- specs: 1 passed, 0 broken") {
		t.Errorf("a passing run:\n%s", b.String())
	}
	b.Reset()
	if WriteConformance(&b, "web", nil, []Cell{good, bad}) {
		t.Error("a run with a finding passed")
	}
	for _, want := range []string{"**NOT PASSED** — 1 broken (findings), 0 error\n- specs: 1 passed, 1 broken", "| leader | one writer | broken | broke leader/only-holder-writes |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in:\n%s", want, b.String())
		}
	}
}

// declares is spec r declaring ps, as testenv.Judges does.
func declares(r types.SpecReport, ps ...verdict.Property) types.SpecReport {
	r.LeafNodeLabels = append(r.LeafNodeLabels, verdict.Declarations(ps...)...)
	return r
}

// A property the binding cannot judge is counted and named wherever the
// result is; a skipped spec of a bound capability makes a correct cell
// passed with gaps, naming what it did not judge. Before, both read as
// passed, and nothing named what was never checked.
func TestNotBoundAndSkippedPropertiesAreNamed(t *testing.T) {
	nb := verdict.Record{Property: catalog.FgBlockerNamed, Outcome: verdict.NotBound, Reason: "the subject binds no blockerMessage"}
	blocked := declares(spec("blocked", types.SpecStatePassed, "", rec(catalog.FgDeletingStatus, verdict.Held), nb),
		catalog.FgDeletingStatus, catalog.FgBlockerNamed)
	samename := declares(spec("samename", types.SpecStateSkipped, "no external name"), catalog.FgOneCreateWins, catalog.FgSuccessorReady)
	c := Cell{Suite: "foreground", Subject: "crossplane", MaySkip: true, Conformance: true}

	if kind, detail := c.Judge(run(t, blocked)); kind != Passed || detail != "1 property not judged (not bound: foreground/blocker-named)" {
		t.Errorf("not bound: %s %q", kind, detail)
	}
	c.Runs = []Run{run(t, blocked, samename)}
	v, ok := c.Verdict()
	want := "passed with gaps: 3 properties not judged (not bound: foreground/blocker-named; skipped: foreground/one-create-wins; foreground/successor-ready)"
	if !ok || v != want {
		t.Errorf("Verdict = %q, %v; want %q", v, ok, want)
	}
	var out bytes.Buffer
	PrintMatrix(&out, "conform", []Cell{c})
	// A conformance run has no intended outcome: it passed or not.
	if !strings.HasSuffix(out.String(), "conform: 1 passed, 0 not passed (1 with declared properties not judged)\n") {
		t.Errorf("matrix:\n%s", out.String())
	}
	word, detail := Result(c.Runs[0].Specs)
	if Line(word, detail) != "PASSED WITH GAPS — 3 properties not judged (not bound: foreground/blocker-named; skipped: foreground/one-create-wins; foreground/successor-ready)" {
		t.Errorf("Result = %s", Line(word, detail))
	}
	cov := CoverageOf(c.Runs[0].Specs)
	if cov.Judgement() != "1 of 4 declared properties judged" {
		t.Errorf("Judgement = %q", cov.Judgement())
	}
	if word, _ := Result(run(t, blocked).Specs); word != ResultPassed {
		t.Errorf("not bound only: %s", word)
	}
	broken := declares(spec("blocked", types.SpecStateFailed, "broken", rec(catalog.FgDeletingStatus, verdict.Broken)), catalog.FgDeletingStatus)
	if word, _ := Result(run(t, broken, samename).Specs); word != ResultNotPassed {
		t.Errorf("a finding: %s", word)
	}
}

// The summary says how many declared properties were judged, names the
// ones not bound in its result and its rows, and a skipped spec of a bound
// capability makes the result PASSED WITH GAPS. Before, each read PASSED.
func TestWriteConformanceNamesWhatWasNotJudged(t *testing.T) {
	nb := func(p verdict.Property, field string) verdict.Record {
		return verdict.Record{Property: p, Outcome: verdict.NotBound, Reason: "the subject binds no " + field}
	}
	fg := Cell{Suite: "foreground", Subject: "web", MaySkip: true, Conformance: true, Runs: []Run{run(t,
		declares(spec("blocked", types.SpecStatePassed, "", rec(catalog.FgDeletingStatus, verdict.Held), nb(catalog.FgBlockerNamed, "blockerMessage")),
			catalog.FgDeletingStatus, catalog.FgBlockerNamed))}}
	fin := Cell{Suite: "finalizer", Subject: "web", MaySkip: true, Conformance: true, Runs: []Run{run(t,
		declares(spec("foreign", types.SpecStatePassed, "", rec(catalog.FinReleased, verdict.Held), rec(catalog.FinP3, verdict.Held), nb(catalog.FinP4, "sideEffects")),
			catalog.FinReleased, catalog.FinP3, catalog.FinP4))}}
	var b strings.Builder
	if !WriteConformance(&b, "web", nil, []Cell{fg, fin}) {
		t.Errorf("not bound is not a failure:\n%s", b.String())
	}
	for _, want := range []string{
		"- result: **PASSED** — 2 properties not judged (not bound: foreground/blocker-named; finalizer/P4)\n",
		"; 3 of 5 declared properties judged\n",
		"| foreground | blocked | not-bound | foreground/blocker-named: the subject binds no blockerMessage |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in:\n%s", want, b.String())
		}
	}
	fin.Runs[0].Specs = append(fin.Runs[0].Specs, run(t, declares(spec("moves", types.SpecStateSkipped, "no move on --provider existing"), catalog.FinP1, catalog.FinP2)).Specs...)
	b.Reset()
	if !WriteConformance(&b, "web", nil, []Cell{fg, fin}) || !strings.Contains(b.String(),
		"- result: **PASSED WITH GAPS** — 4 properties not judged (not bound: foreground/blocker-named; finalizer/P4; skipped: finalizer/P1; finalizer/P2)\n") {
		t.Errorf("a skipped move:\n%s", b.String())
	}
	if word, _ := ConformanceResult(nil); word != ResultError {
		t.Errorf("no cell: %s", word)
	}
}

// A spec skipped because the subject binds no such capability is no gap:
// its properties are named as not bound beside PASSED.
func TestAnUnboundCapabilityIsNotAGap(t *testing.T) {
	leader := declares(spec("fails over", types.SpecStatePassed, "", rec(catalog.LeaderFailover, verdict.Held)), catalog.LeaderFailover)
	storm := declares(spec("storm", types.SpecStateSkipped, verdict.CapabilityNotBound+"subject web is not a scalable workload (a subject file binds it under capabilities.scalableWorkload)"),
		catalog.LostAfterStorm)
	specs := run(t, leader, storm).Specs
	if word, detail := Result(specs); Line(word, detail) != "PASSED — 1 property not judged (not bound: lostevents/converges-after-storm)" {
		t.Errorf("Result = %s", Line(word, detail))
	}
	c := Cell{Suite: "lostevents", Subject: "web", MaySkip: true, Runs: []Run{run(t, leader, storm)}}
	if v, ok := c.Verdict(); !ok || v != "passed: 1 property not judged (not bound: lostevents/converges-after-storm)" {
		t.Errorf("Verdict = %q, %v", v, ok)
	}
}

func TestJudgementOfAReportWithNoDeclarations(t *testing.T) {
	if got := (Coverage{}).Judgement(); got != "no spec declares its properties" {
		t.Errorf("Judgement of nothing declared = %q", got)
	}
}

// A run's one-line result names every error, and the properties that
// broke beside them: the first error alone hid the rest.
func TestJudgeNamesEveryErrorAndWhatBrokeBeside(t *testing.T) {
	setup := spec("a", types.SpecStateFailed, "create the spec's namespace: connection refused")
	timeout := spec("b", types.SpecStateFailed, "Timed out after 30.001s")
	broken := spec("c", types.SpecStateFailed, "invariant broken", rec(catalog.LeaderOneWriter, verdict.Broken))
	skipped := spec("d", types.SpecStateSkipped, "not here")
	c := Cell{Suite: "leader", Subject: "leader"}
	kind, detail := c.Judge(run(t, skipped, setup, broken, timeout))
	if kind != Error {
		t.Fatalf("kind %s (%s), want %s: an error outranks a skip and a broken property", kind, detail, Error)
	}
	for _, want := range []string{"a: failed outside any property: create the spec's namespace", "b: failed outside any property: Timed out", "broken beside: " + catalog.LeaderOneWriter.ID} {
		if !strings.Contains(detail, want) {
			t.Errorf("detail %q does not name %q", detail, want)
		}
	}
}
