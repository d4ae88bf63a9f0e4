package testenv

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/evidence"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/oracle"
	"github.com/steadystate-dev/steadystate/verdict"
)

// current is the evidence of the spec now running, spool its folder for
// what recorders and proxies keep on disk; reached, while Verify runs the
// spec's checks, the properties whose offline judge a check ran (Judged).
var (
	current *evidence.Collector
	spool   string
	reached map[string]bool
)

// specEvidence is the current spec's evidence collector, made at its first
// use in the spec. When the spec ends, a failing one (every one with
// STEADYSTATE_KEEP_EVIDENCE=1) keeps evidence.json and history.txt in its
// artifacts folder.
func specEvidence() *evidence.Collector {
	started := CurrentSpecReport().StartTime
	if current != nil && current.Start().Equal(started) {
		return current
	}
	c := evidence.NewCollector(CurrentSpecReport().FullText(), started)
	dir, err := os.MkdirTemp("", "steadystate-spool-")
	if err != nil {
		Fail("make the spec's spool folder: " + err.Error())
	}
	current, spool = c, dir
	// Registered at the first use, so it runs after the cleanups
	// registered later (they stop recorders and proxies, whose histories
	// stay readable, from memory and from the spool, until it is gone).
	DeferCleanup(func() {
		defer os.RemoveAll(dir)
		if !CurrentSpecReport().Failed() && !Run().KeepEvidence {
			return
		}
		if err := c.WriteArtifacts(SpecArtifacts()); err != nil {
			fmt.Fprintf(GinkgoWriter, "keep the spec's evidence: %v\n", err)
		}
	})
	return c
}

// SpoolDir is the current spec's folder for the history its recorders and
// proxies keep on disk (their memory holds only the newest of it). It
// lives until the spec's evidence is kept, and goes after.
func SpoolDir() string {
	specEvidence()
	return spool
}

// Evidence is the current spec's evidence collector. Call it from the
// spec; the collector itself may then be used from any goroutine.
func Evidence() *evidence.Collector { return specEvidence() }

// Fact records a fact about the current spec's scenario for the judges.
func Fact(name, value string) { specEvidence().Fact(name, value) }

// FactTime records a moment as a fact.
func FactTime(name string, t time.Time) { Fact(name, t.Format(time.RFC3339Nano)) }

// KeepLog adds a log the scenario reads (read when the spec is judged and
// when its evidence is kept) to the current spec's evidence.
func KeepLog(name string, read func() (any, error)) { specEvidence().KeepLog(name, read) }

// Judged is the check of a property that judge.Offline judges from
// evidence: the same function `steadystate validate` runs offline, here on
// the current spec's evidence as recorded so far (and again by Verify on
// the spec's final evidence). The bound it judged
// against, when the judge names one (judge.BoundText), is the record's
// "bound" figure.
func Judged(p verdict.Property) oracle.Check {
	j, ok := judge.Offline[p.ID]
	if !ok {
		Fail("no offline judge for property " + p.ID)
	}
	fig := oracle.Figures{}
	return oracle.Check{Property: p, Figures: fig, Run: func() error {
		e := specEvidence().Snapshot()
		if reached != nil {
			reached[p.ID] = true
		}
		if b := judge.BoundText(p.ID, e); b != "" {
			fig["bound"] = b
		}
		return j(e)
	}}
}

// Await records b as the bound of convergence property p (the fact
// judge.FactConvergence(p.ID)) and waits on the spec's history b names
// until the verdict is known. The property is then judged, live and
// offline, by the same offline judge (Judged, Converges). When ctx (the
// spec's) ended during the wait, Verify records the spec's checks that
// then fail as not evaluated: the wait stopped, nothing was judged.
func Await(ctx context.Context, p verdict.Property, b judge.Bound) (oracle.Result, error) {
	GinkgoHelper()
	h, err := b.Source(specEvidence().History)
	if err != nil {
		Fail(fmt.Sprintf("%s: the spec records no such history: %v", p.ID, err))
	}
	m, err := b.Want.Match()
	if err != nil {
		Fail(fmt.Sprintf("%s: %v", p.ID, err))
	}
	Fact(judge.FactConvergence(p.ID), b.Value())
	r, err := b.Wait(ctx, h, m)
	contextEnded(ctx)
	return r, err
}

// Converges is the check of convergence property p: when it runs, bound
// gives its Bound (its Since may be a change the check itself makes); the
// check waits with Await, then gives the offline judge's verdict on the
// evidence recorded so far, the one `steadystate validate` gives. figure,
// when set, names the measured convergence time among the record's
// figures, next to "bound".
func Converges(ctx context.Context, p verdict.Property, bound func() judge.Bound, figure string) oracle.Check {
	check := Judged(p)
	fig := oracle.Figures{}
	return oracle.Check{Property: p, Figures: fig, Run: func() error {
		b := bound()
		r, err := Await(ctx, p, b)
		if ctx.Err() != nil {
			// The spec ended while it waited: nothing was judged.
			return fmt.Errorf("%w: the spec ended while %s was awaited: %w", oracle.ErrNotEvaluated, p.ID, cmp.Or(err, ctx.Err()))
		}
		fig["bound"] = b.Within.String()
		if figure != "" && !r.At.IsZero() {
			fig[figure] = r.Took.Round(time.Millisecond).String()
		}
		return check.Run()
	}}
}

// Timeline starts the spec's fault timeline, part of its evidence.
func Timeline() *chaos.Timeline {
	tl := chaos.NewTimeline()
	tl.Observe(counter.fault)
	specEvidence().AddTimeline(tl)
	return tl
}

// KeepProxy adds a replica's proxy to the spec's evidence and keeps the
// replica's log (read by log) with a failing spec's artifacts. Call it
// after registering the replica's stop: cleanups run last-in, first-out,
// so this runs first, and the proxy's history survives Close anyway.
// The lines of the replica's log that show a panic are part of its
// evidence (judge.LogPanics), for steadystate/no-panic.
func KeepProxy(identity string, log func() ([]byte, error), p proxy.Controller) {
	identity = specEvidence().AddProxy(identity, p)
	keepOnFailure(identity+".log", log)
	specEvidence().KeepLog(judge.LogPanics+"/"+identity, func() (any, error) {
		out, err := log()
		if err != nil {
			return nil, err
		}
		lines := judge.PanicLines(out, maxPanicLines)
		if lines == nil {
			lines = []judge.PanicLine{}
		}
		return lines, nil
	})
}

// maxPanicLines is how many lines showing a panic a replica's evidence
// keeps: enough to read what panicked.
const maxPanicLines = 20
