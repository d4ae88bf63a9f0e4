package judge

import (
	"github.com/steadystate-dev/steadystate/catalog"
	"github.com/steadystate-dev/steadystate/evidence"
	"github.com/steadystate-dev/steadystate/oracle"
	"github.com/steadystate-dev/steadystate/verdict"
)

// OfflineNotBound re-makes from evidence, by property id, the not-bound
// outcomes a run decides from what it recorded rather than from the
// subject's binding: why the property is not bound, "" when the evidence
// says it is bound after all. `steadystate validate` and `verify` check
// such a record with it, so a run's "not bound" is re-judged like its
// verdicts; any other not-bound record stands as the run recorded it.
var OfflineNotBound = map[string]func(e *evidence.Evidence) string{
	// A refusal of writes that found the controller with none to make.
	catalog.SteadyWritesRefused.ID: WritesRefusedUnbound,
	// A state that did not settle again after an exploration's faults.
	catalog.SteadyQuiescent.ID: QuiescentUnbound,
}

// RejudgeNotBound re-makes rec, recorded not bound, from e where
// OfflineNotBound has its rule: the record as the evidence decides it
// now, and whether a rule applied. Evidence that says the property is
// bound gives a record not evaluated, so it differs from the run's.
func RejudgeNotBound(rec verdict.Record, e *evidence.Evidence) (verdict.Record, bool) {
	rule, ok := OfflineNotBound[rec.ID]
	if !ok || rec.Outcome != verdict.NotBound {
		return rec, false
	}
	now := rec
	why := rule(e)
	if why == "" {
		// A spec whose premise was not bound judges none of its
		// properties: the premise's rule decides them all.
		why = premiseUnbound(e, rec.ID)
	}
	if why == "" {
		now.Outcome = verdict.NotEvaluated
		now.Reason = "the evidence shows the property bound"
	} else {
		now.Reason = why
	}
	return now, true
}

// FactSpecNotBound is why a spec's premise was not bound, as the run
// decided it (from the references, say: no first create to restart
// after); the spec then judges none of its properties.
const FactSpecNotBound = "spec/not-bound"

// premiseUnbound is why a premise of e's spec other than id is not
// bound: as the run recorded it (FactSpecNotBound), or by a premise's
// OfflineNotBound rule; "" when none says so.
func premiseUnbound(e *evidence.Evidence, id string) string {
	if why := e.Facts[FactSpecNotBound]; why != "" {
		return why
	}
	for _, p := range catalog.Properties {
		rule, ok := OfflineNotBound[p.ID]
		if !ok || p.ID == id || p.Stage != verdict.Assumption {
			continue
		}
		if why := rule(e); why != "" {
			return p.ID + " not bound: " + why
		}
	}
	return ""
}

// Remakes reports whether Rejudge re-makes rec: a held or broken record
// with an offline judge (Offline), a not-bound one decided from evidence
// (OfflineNotBound). Not a record not evaluated, not bound by the
// subject's binding, or judged live only.
func Remakes(rec verdict.Record) bool {
	if _, ok := OfflineNotBound[rec.ID]; ok && rec.Outcome == verdict.NotBound {
		return true
	}
	_, ok := Offline[rec.ID]
	return ok && (rec.Outcome == verdict.Held || rec.Outcome == verdict.Broken)
}

// Rejudge judges rec again from e, as `validate` and `verify` do, where
// Remakes says it can (ok false, rec as recorded, elsewhere).
func Rejudge(rec verdict.Record, e *evidence.Evidence) (got verdict.Record, ok bool) {
	if !Remakes(rec) {
		return rec, false
	}
	if got, ok := RejudgeNotBound(rec, e); ok {
		return got, true
	}
	return oracle.Judge(e.Start, rec.Property, Offline[rec.ID](e)), true
}
