package matrix

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/reports"
)

// The reconcile suite's fault-free specs, its reference runs: the
// first also deletes the objects, the second watches the quiet window
// before its first change.
const (
	firstReference  = "settles and leaves nothing behind"
	secondReference = "settles the same way in a second clean run, goes quiet and still acts"
)

// BenchmarkReferenceRun measures the reconcile suite's fault-free
// reference runs of the reference composite controller (bin/refctl
// composite, one Claim and one change, the binding the self-test runs):
// each loop is one run of the suite, as the self-test runs a cell
// (RunCell: `bin/steadystate suite reconcile` in a child process with a
// local cluster of its own, whose start is the suite's set-up and is not
// counted), focused on its two fault-free specs, every spec's evidence
// kept. The figures come from the suite's Ginkgo report and the facts the
// reference runs record in their evidence.
//
// The reference run is the suite's own scenario (suites/reconcile),
// built on Ginkgo: its failures are Fail and Expect, its clean-ups
// DeferCleanup, its records the spec's evidence. It cannot be called
// outside a Ginkgo suite without rewriting it, and a copy would measure
// the copy; so the benchmark runs the suite itself and reads the times
// the runs recorded.
//
// It reports medians: refs-ms, the two specs together (what every
// reconcile suite run pays before its faulted specs), and first-ms
// and second-ms, each spec's; ref-run-ms, a reference run from the
// objects' apply to its end state (both specs), and its split: settle-ms
// (the apply to the change, which comes once the state settled: ready
// for the settle window W, 2 s), ready-ms (the apply to the state ready
// for good, from the recorded histories as the settles judge reads them)
// and change-ms (the change to the end state, W included); setup-1-ms
// and setup-2-ms, each spec's start to the apply (namespace, recorders,
// the controller's start); for the first spec, delete-ms (the deletion
// to nothing left behind and the spec judged), and for the second,
// quiet-ms (the quiet window, 10 s, unless the controller writes). What a spec took beyond
// these is its judging and tear-down. Each suite run's figures are
// logged. Run it with `make bench`, which builds bin/steadystate and
// bin/refctl first.
func BenchmarkReferenceRun(b *testing.B) {
	program, refctl := requireSuiteBinaries(b)
	var refs, firsts, seconds, runs, settles, readies, changes, setups1, setups2, quiets, deletes []time.Duration
	i := 0
	for b.Loop() {
		i++
		dir := filepath.Join(b.TempDir(), strconv.Itoa(i))
		cell := reports.Cell{Suite: "reconcile", Subject: "composite"}
		cr := Run{Refctl: refctl, Provider: "local"}.CellRun(cell, dir, 1, io.Discard)
		cr.Program = program
		cr.Env = []string{"PROVIDER=local", "STEADYSTATE_KEEP_EVIDENCE=1"}
		cr.Args = []string{"-ginkgo.focus=" + firstReference, "-ginkgo.focus=" + secondReference}
		r := RunCell(b.Context(), cr)
		if r.Err != "" {
			b.Fatalf("suite run %d: %s", i, r.Err)
		}
		var pair time.Duration
		var line []string
		ran := 0
		for _, s := range r.Specs {
			first := strings.HasSuffix(s.Name, firstReference)
			if !first && !strings.HasSuffix(s.Name, secondReference) {
				continue
			}
			if s.Outcome != verdict.Passed || s.Report == nil {
				b.Fatalf("suite run %d: %q %s (%s): its times are not a reference run's; see %s", i, s.Name, s.Outcome, s.Reason, filepath.Join(dir, "ginkgo.log"))
			}
			ran++
			took := s.Report.RunTime
			pair += took
			t, err := referenceTimes(filepath.Join(dir, evidence.SpecFolder(s.Name), evidence.FileName), first)
			if err != nil {
				b.Fatalf("suite run %d: %q: %v", i, s.Name, err)
			}
			runs, settles, readies, changes = append(runs, t.run), append(settles, t.settle), append(readies, t.ready), append(changes, t.change)
			if first {
				firsts, setups1, deletes = append(firsts, took), append(setups1, t.setup), append(deletes, t.delete)
				line = append(line, fmt.Sprintf("first %s (set-up %s, run %s: ready %s, settled %s, changed %s; deletion %s)", ms(took), ms(t.setup), ms(t.run), ms(t.ready), ms(t.settle), ms(t.change), ms(t.delete)))
			} else {
				seconds, setups2, quiets = append(seconds, took), append(setups2, t.setup), append(quiets, t.quiet)
				line = append(line, fmt.Sprintf("second %s (set-up %s, run %s: ready %s, settled %s, changed %s; quiet %s)", ms(took), ms(t.setup), ms(t.run), ms(t.ready), ms(t.settle), ms(t.change), ms(t.quiet)))
			}
		}
		if ran != 2 {
			b.Fatalf("suite run %d ran %d of its 2 fault-free specs; see %s", i, ran, filepath.Join(dir, "ginkgo.log"))
		}
		refs = append(refs, pair)
		b.Logf("suite run %d: reference runs %s: %s", i, ms(pair), strings.Join(line, "; "))
	}
	for _, m := range []struct {
		unit string
		ds   []time.Duration
	}{
		{"refs-ms", refs}, {"first-ms", firsts}, {"second-ms", seconds},
		{"ref-run-ms", runs}, {"settle-ms", settles}, {"ready-ms", readies}, {"change-ms", changes},
		{"setup-1-ms", setups1}, {"setup-2-ms", setups2}, {"quiet-ms", quiets}, {"delete-ms", deletes},
	} {
		b.ReportMetric(medianMS(m.ds), m.unit)
	}
	b.ReportMetric(0, "ns/op") // a loop's wall time holds the suite's cluster start: read the medians
}

// ms is d rounded to the millisecond, for the log lines.
func ms(d time.Duration) string { return d.Round(time.Millisecond).String() }

// refTimes are where one reference run's time went.
type refTimes struct {
	setup, run, settle, ready, change, quiet, delete time.Duration
}

// referenceTimes reads one reference run's times from its evidence file:
// the settle phases, the end mark, and for the first spec the deletion,
// for the second the quiet window.
func referenceTimes(path string, first bool) (refTimes, error) {
	var t refTimes
	e, err := evidence.Read(path)
	if err != nil {
		return t, err
	}
	var phases []judge.SettlePhase
	var end judge.EndMark
	if err := errors.Join(fact(e, judge.FactSteadySettle.Name, &phases), fact(e, judge.FactSteadyEnd.Name, &end)); err != nil {
		return t, err
	}
	if len(phases) == 0 {
		return t, fmt.Errorf("%s: fact %q names no phase", path, judge.FactSteadySettle)
	}
	applied := phases[0].Since
	settled := end.At // with no change, the end state is taken once the apply settled
	if len(phases) > 1 {
		settled = phases[1].Since
	}
	t.setup, t.run, t.settle, t.change = applied.Sub(e.Start), end.At.Sub(applied), settled.Sub(applied), end.At.Sub(settled)
	if t.ready, err = readyAfter(e, phases[0], settled); err != nil {
		return t, fmt.Errorf("%s: %w", path, err)
	}
	if first {
		var d judge.Deletion
		if err := fact(e, judge.FactSteadyDeleted.Name, &d); err != nil {
			return t, err
		}
		t.delete = e.End.Sub(d.At)
		return t, nil
	}
	var q judge.QuietWindow
	if err := fact(e, judge.FactSteadyQuiet.Name, &q); err != nil {
		return t, err
	}
	t.quiet = q.To.Sub(q.From)
	return t, nil
}

// readyAfter is how long after phase ph began its objects and what they
// own were ready for good (for the phase's window), judged until until,
// on the evidence's steady-state histories joined, as the settles judge
// reads them.
func readyAfter(e *evidence.Evidence, ph judge.SettlePhase, until time.Time) (time.Duration, error) {
	names, err := e.Fact(judge.FactSteadyHistories.Name)
	if err != nil {
		return 0, err
	}
	histories := map[string]*oracle.History{}
	for _, n := range strings.Split(names, ",") {
		if histories[n], err = e.History(n); err != nil {
			return 0, err
		}
	}
	var overrides []judge.ReadinessOverride
	if _, ok := e.Facts[judge.FactSteadyReadiness.Name]; ok {
		if err := fact(e, judge.FactSteadyReadiness.Name, &overrides); err != nil {
			return 0, err
		}
	}
	window, err := time.ParseDuration(ph.Window)
	if err != nil {
		return 0, fmt.Errorf("phase %q: window: %w", ph.What, err)
	}
	c := oracle.Convergence{Since: ph.Since, Within: until.Sub(ph.Since), Window: window}
	r, err := c.Check(oracle.Join(oracle.NewHistory(), histories), judge.AllReady(ph.Objects, overrides), until)
	if err != nil {
		return 0, fmt.Errorf("phase %q did not settle by %s in its recorded history: %w", ph.What, until.Format(time.RFC3339Nano), err)
	}
	return r.Took, nil
}

// fact decodes the evidence's JSON fact name into v.
func fact(e *evidence.Evidence, name string, v any) error {
	raw, err := e.Fact(name)
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(raw), v); err != nil {
		return fmt.Errorf("fact %q: %w", name, err)
	}
	return nil
}

// medianMS is the median of ds in milliseconds.
func medianMS(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2].Microseconds()) / 1000
}

// requireSuiteBinaries finds what a suite run needs: bin/steadystate and
// bin/refctl in the checkout (`make steadystate` builds them) and the
// Kubernetes binaries (`make kube-bins`). It skips the benchmark when one
// is missing, or fails it with STEADYSTATE_REQUIRE_BINARIES=1.
func requireSuiteBinaries(b *testing.B) (program, refctl string) {
	b.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		b.Fatal(err)
	}
	program, refctl = filepath.Join(root, "bin", "steadystate"), filepath.Join(root, "bin", "refctl")
	missing := func(what string, err error) {
		if os.Getenv("STEADYSTATE_REQUIRE_BINARIES") == "1" {
			b.Fatalf("%s are required: %v", what, err)
		}
		b.Skipf("needs %s, which are not built: %v", what, err)
	}
	for _, p := range []string{program, refctl} {
		if _, err := os.Stat(p); err != nil {
			missing("bin/steadystate and bin/refctl (`make steadystate`)", err)
		}
	}
	version := os.Getenv("KUBE_VERSION")
	if version == "" {
		version = local.DefaultKubeVersion
	}
	if _, err := local.FindBinaries(os.Getenv("KUBE_BIN_DIR"), version); err != nil {
		missing("Kubernetes binaries (`make kube-bins`)", err)
	}
	return program, refctl
}
