package testenv

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// Verify judges the spec. It evaluates the checks with
// oracle.Validate, adds whether every history the spec recorded is
// complete (catalog.EvidenceComplete), attaches every record to the spec's
// report (Ginkgo's report entries, read back by the self-test and the
// reports) and fails the spec with one short, stable line per broken
// property, or with the assumption that did not hold. Once every check has
// run (and acted and waited, in stage order), the spec's evidence is
// frozen: every property whose check ran its offline judge is judged
// again on it, and it is the evidence the spec keeps, so `steadystate
// verify` re-judges exactly what was judged. A check that ends
// on a context's end (the spec's, or a wait's that ran out) is not
// evaluated, never broken. The spec's NotBound records are kept with the
// others.
func (s *Spec) Verify(checks ...oracle.Check) []verdict.Record {
	GinkgoHelper()
	base := CurrentSpecReport().StartTime
	wrapped := s.unjudgedOnEnd(checks)
	s.mu.Lock()
	s.reached = map[string]bool{}
	s.mu.Unlock()
	records := oracle.Validate(base, wrapped...)
	s.mu.Lock()
	judged := s.reached
	s.reached = nil
	s.mu.Unlock()
	// The checks acted and waited in turn, each judging the evidence of
	// its moment. The evidence is final now: freeze it (it is what the
	// spec keeps, and what `steadystate verify` re-judges) and judge every
	// property an offline judge decided again on it, so live and offline
	// verdicts are the same.
	final := s.ev.Freeze()
	if !s.specContextEnded() {
		records = rejudge(base, records, judged, final)
	}
	return s.conclude(base, records, final)
}

// VerifyFinal is Verify for a spec that has nothing left to wait for,
// every check one of Judged's: the evidence is final before the checks
// run, so it is frozen first and each check judges it once, where Verify
// judges each on the evidence of its moment and then all again on the
// frozen evidence. The records are the ones Verify would give, each
// property's bound measured on that same evidence. An exploration
// schedule's final judging is this: its waits are over when it is
// judged, and judging twice took half of that judging's CPU.
func (s *Spec) VerifyFinal(checks ...oracle.Check) []verdict.Record {
	GinkgoHelper()
	base := CurrentSpecReport().StartTime
	wrapped := s.unjudgedOnEnd(checks)
	final := s.ev.Freeze()
	records := func() []verdict.Record {
		s.mu.Lock()
		s.final = final
		s.mu.Unlock()
		// A check that fails the spec (Ginkgo's Fail panics) leaves no
		// frozen evidence behind for a later Judged check.
		defer func() {
			s.mu.Lock()
			s.final = nil
			s.mu.Unlock()
		}()
		return oracle.Validate(base, wrapped...)
	}()
	return s.conclude(base, records, final)
}

// unjudgedOnEnd is checks, each not evaluated when it ends on the
// spec's context's end (unjudgedOnContextEnd).
func (s *Spec) unjudgedOnEnd(checks []oracle.Check) []oracle.Check {
	wrapped := make([]oracle.Check, len(checks))
	for i, c := range checks {
		wrapped[i] = unjudgedOnContextEnd(c, s.specContextEnded)
	}
	return wrapped
}

// conclude adds to records whether every history the spec recorded is
// complete, judged on the final evidence, attaches every record to the
// spec's report and keeps them with the evidence, and fails the spec
// when one says so.
func (s *Spec) conclude(base time.Time, records []verdict.Record, final *evidence.Evidence) []verdict.Record {
	GinkgoHelper()
	complete := judge.Offline[catalog.EvidenceComplete.ID](final)
	records = append([]verdict.Record{oracle.Judge(base, catalog.EvidenceComplete, complete)}, records...)
	for _, r := range records {
		AddReportEntry(verdict.EntryName, ReportEntryVisibilityFailureOrVerbose, r)
	}
	// NotBound attached its records already.
	records = append(records, s.notBoundRecords()...)
	s.ev.SetRecords(records)
	if msg := verdict.Message(records); msg != "" {
		Fail(msg)
	}
	return records
}

// rejudge judges again, on the final evidence e, each record whose check
// ran its property's offline judge (judged) and held or broke; an
// assumption that broke is kept (the checks after it never ran), and one
// that breaks now leaves the records after its stage not evaluated, as
// oracle.Validate does. Figures measured live are kept.
func rejudge(base time.Time, records []verdict.Record, judged map[string]bool, e *evidence.Evidence) []verdict.Record {
	out := make([]verdict.Record, len(records))
	failed := ""
	for i, r := range records {
		out[i] = r
		if failed != "" && r.Stage != verdict.Assumption {
			out[i] = verdict.Record{Property: r.Property, Outcome: verdict.NotEvaluated, Reason: "assumption " + failed}
			continue
		}
		j := judge.Offline[r.ID]
		keep := j == nil || !judged[r.ID] || (r.Outcome != verdict.Held && r.Outcome != verdict.Broken) ||
			(r.Stage == verdict.Assumption && r.Outcome == verdict.Broken)
		if !keep {
			again := oracle.Judge(base, r.Property, j(e))
			if again.Outcome != r.Outcome {
				fmt.Fprintf(GinkgoWriter, "%s judged again on the spec's final evidence: %s, was %s at its check\n", r.ID, again.Outcome, r.Outcome)
			}
			again.Figures = r.Figures
			out[i] = again
		}
		if r.Stage == verdict.Assumption && failed == "" {
			switch out[i].Outcome {
			case verdict.Broken:
				failed = r.ID + " did not hold"
			case verdict.NotEvaluated:
				failed = r.ID + " was not evaluated"
			}
		}
	}
	return out
}
