package judge

import (
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
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

// FactSpecNotBound is a spec's premise the run found not bound and why
// (SpecNotBound, as JSON): decided from what it recorded (no first create
// to restart after, nothing to disturb), after which the spec judges none
// of its properties.
var FactSpecNotBound = Fact[SpecNotBound]{Name: "spec/not-bound"}

// SpecNotBound is the value of FactSpecNotBound.
type SpecNotBound struct {
	Premise string `json:"premise"`
	Why     string `json:"why"`
}

// premiseUnbound is why a premise of e's spec keeps the spec's property
// id not bound; "" when the evidence says it is bound. A premise with an
// offline rule of its own (OfflineNotBound) whose fault acted is judged
// by that rule again, whatever the run recorded, since the run decided
// on the evidence as it was then; one whose fault never acted, or that
// has no rule, stands as the run recorded it (FactSpecNotBound).
func premiseUnbound(e *evidence.Evidence, id string) string {
	if fact, _ := FactSpecNotBound.Lookup(e); fact.Premise != "" {
		if rule, ok := OfflineNotBound[fact.Premise]; ok && len(e.Faults) > 0 {
			if why := rule(e); why != "" && fact.Premise != id {
				return fact.Premise + " not bound: " + why
			}
			return ""
		}
		if fact.Premise == id {
			return fact.Why
		}
		return fact.Premise + " not bound: " + fact.Why
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
