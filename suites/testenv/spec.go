package testenv

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// Spec is the state of one running spec, made by Begin at its start and
// passed to everything that records or judges for it: its evidence, the
// folder its recorders and proxies spool to, what it said about itself
// (the properties its binding gives no means to judge, a wait its context
// ended) and, while Verify runs, the properties whose offline judge its
// checks ran (while VerifyFinal runs, the frozen evidence they judge).
// Nothing of it is kept in the package: two specs never share one.
type Spec struct {
	ev    *evidence.Collector
	spool string

	mu       sync.Mutex
	notBound []verdict.Record
	ctxEnded bool
	// reached is set while Verify runs the checks: the properties whose
	// offline judge a check ran (Judged), to judge again on the final
	// evidence.
	reached map[string]bool
	// final is set while VerifyFinal runs the checks: the frozen
	// evidence every Judged check judges, in place of a snapshot.
	final *evidence.Evidence
}

// Begin makes the state of the spec now running. Call it once per spec,
// before anything records for it (its first BeforeEach, or the It), and
// pass the Spec to what needs it. When the spec ends, a failing one
// (every one not skipped with STEADYSTATE_KEEP_EVIDENCE=1) keeps
// evidence.json and history.txt in its artifacts folder.
func Begin() *Spec {
	GinkgoHelper()
	report := CurrentSpecReport()
	dir, err := os.MkdirTemp("", "steadystate-spool-")
	if err != nil {
		Fail("make the spec's spool folder: " + err.Error())
	}
	s := &Spec{ev: evidence.NewCollector(report.FullText(), report.StartTime), spool: dir}
	// Registered before anything the spec starts, so it runs after their
	// cleanups (they stop recorders and proxies, whose histories stay
	// readable, from memory and from the spool, until it is gone), and
	// before the namespace's deletion, registered just before it.
	DeferCleanup(func() {
		defer os.RemoveAll(dir)
		// A spec skipped once begun (its subject lacks the capability)
		// judged nothing and keeps nothing, as before it recorded.
		if r := CurrentSpecReport(); r.State.Is(types.SpecStateSkipped) || (!r.Failed() && !Run().KeepEvidence) {
			return
		}
		if err := s.ev.WriteArtifacts(SpecArtifacts()); err != nil {
			fmt.Fprintf(GinkgoWriter, "keep the spec's evidence: %v\n", err)
		}
	})
	return s
}

// SpoolDir is the spec's folder for the history its recorders and
// proxies keep on disk (their memory holds only the newest of it). It
// lives until the spec's evidence is kept, and goes after.
func (s *Spec) SpoolDir() string { return s.spool }

// Evidence is the spec's evidence collector; it may be used from any
// goroutine.
func (s *Spec) Evidence() *evidence.Collector { return s.ev }

// Fact records a fact about the spec's scenario for the judges: what a
// judge.Fact's Set calls.
func (s *Spec) Fact(name, value string) { s.ev.Fact(name, value) }

// KeepLog adds a log the scenario reads (read when the spec is judged and
// when its evidence is kept) to the spec's evidence.
func (s *Spec) KeepLog(name string, read func() (any, error)) { s.ev.KeepLog(name, read) }

// NotBound records that the subject's binding gives the spec no means to
// judge p (why names the binding it lacks): a not-bound record, which
// every report shows, never a pass and never a finding. Verify keeps it
// with the spec's records.
func (s *Spec) NotBound(p verdict.Property, why string) {
	rec := verdict.Record{Property: p, Outcome: verdict.NotBound, Reason: why}
	s.mu.Lock()
	s.notBound = append(s.notBound, rec)
	s.mu.Unlock()
	AddReportEntry(verdict.EntryName, ReportEntryVisibilityFailureOrVerbose, rec)
}

func (s *Spec) notBoundRecords() []verdict.Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]verdict.Record(nil), s.notBound...)
}

// contextEnded notes that the spec's context ended during one of its
// waits: a check that then finds its property unmet judged nothing.
func (s *Spec) contextEnded(ctx context.Context) {
	if ctx.Err() == nil {
		return
	}
	s.mu.Lock()
	s.ctxEnded = true
	s.mu.Unlock()
}

func (s *Spec) specContextEnded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ctxEnded
}

// judgeReached notes, while Verify runs the checks, that a check ran p's
// offline judge.
func (s *Spec) judgeReached(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reached != nil {
		s.reached[id] = true
	}
}

// judging is the evidence a Judged check judges: the frozen evidence
// while VerifyFinal runs, else the evidence as recorded so far.
func (s *Spec) judging() *evidence.Evidence {
	s.mu.Lock()
	final := s.final
	s.mu.Unlock()
	if final != nil {
		return final
	}
	return s.ev.Snapshot()
}

// Judged is the check of a property that judge.Offline judges from
// evidence: the same function `steadystate validate` runs offline, here on
// the spec's evidence as recorded so far (and again by Verify on the
// spec's final evidence). The bound it judged against, when the judge
// names one (judge.BoundText), is the record's "bound" figure.
func (s *Spec) Judged(p verdict.Property) oracle.Check {
	j, ok := judge.Offline[p.ID]
	if !ok {
		Fail("no offline judge for property " + p.ID)
	}
	fig := oracle.Figures{}
	return oracle.Check{Property: p, Figures: fig, Run: func() error {
		e := s.judging()
		s.judgeReached(p.ID)
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
func (s *Spec) Await(ctx context.Context, p verdict.Property, b judge.Bound) (oracle.Result, error) {
	GinkgoHelper()
	h, err := b.Source(s.ev.History)
	if err != nil {
		Fail(fmt.Sprintf("%s: the spec records no such history: %v", p.ID, err))
	}
	m, err := b.Want.Match()
	if err != nil {
		Fail(fmt.Sprintf("%s: %v", p.ID, err))
	}
	judge.FactConvergence(p.ID).Set(s, b)
	r, err := b.Wait(ctx, h, m)
	s.contextEnded(ctx)
	return r, err
}

// Converges is the check of convergence property p: when it runs, bound
// gives its Bound (its Since may be a change the check itself makes); the
// check waits with Await, then gives the offline judge's verdict on the
// evidence recorded so far, the one `steadystate validate` gives. figure,
// when set, names the measured convergence time among the record's
// figures, next to "bound".
func (s *Spec) Converges(ctx context.Context, p verdict.Property, bound func() judge.Bound, figure string) oracle.Check {
	check := s.Judged(p)
	fig := oracle.Figures{}
	return oracle.Check{Property: p, Figures: fig, Run: func() error {
		b := bound()
		r, err := s.Await(ctx, p, b)
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

// Premise waits for convergence premise p's bound and, when p did not
// hold, stops the spec at once with its own reason: p's record, judged as
// Verify judges it, attached to the spec (an error of the spec, "assumption
// … did not hold", never a finding).
func (s *Spec) Premise(ctx context.Context, p verdict.Property, b judge.Bound) {
	GinkgoHelper()
	_, err := s.Await(ctx, p, b)
	if err == nil {
		return
	}
	if ctx.Err() == nil {
		s.Verify(s.Judged(p))
	}
	// Verify failed the spec, unless the judge of the evidence disagreed
	// with the wait (or the spec was interrupted): stop anyway.
	Fail(fmt.Sprintf("assumption %s (%s) did not hold: %v", p.ID, p.Sentence, err))
}

// Timeline starts the spec's fault timeline, part of its evidence.
func (s *Spec) Timeline() *chaos.Timeline {
	tl := chaos.NewTimeline()
	tl.Observe(counter.fault)
	s.ev.AddTimeline(tl)
	return tl
}

// KeepProxy adds a replica's proxy to the spec's evidence and keeps the
// replica's log (read by log) with a failing spec's artifacts. Call it
// after registering the replica's stop: cleanups run last-in, first-out,
// so this runs first, and the proxy's history survives Close anyway.
// The lines of the replica's log that show a panic are part of its
// evidence (judge.LogPanics), for reconcile/no-panic.
func (s *Spec) KeepProxy(identity string, log func() ([]byte, error), p proxy.Controller) {
	identity = s.ev.AddProxy(identity, p)
	keepOnFailure(identity+".log", log)
	s.ev.KeepLog(judge.LogPanics+"/"+identity, func() (any, error) {
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

// unjudgedOnContextEnd makes c's error not evaluated when it is a
// context's end, or when ended says the spec's context ended while it
// waited: the check stopped waiting, which says nothing of the subject.
// Every verdict comes from the evidence; a deadline is never one.
func unjudgedOnContextEnd(c oracle.Check, ended func() bool) oracle.Check {
	run := c.Run
	c.Run = func() error {
		err := run()
		if err == nil || errors.Is(err, oracle.ErrNotEvaluated) || (!IsContextErr(err) && !ended()) {
			return err
		}
		return fmt.Errorf("%w: the spec ended before %s was judged: %w", oracle.ErrNotEvaluated, c.Property.ID, err)
	}
	return c
}
