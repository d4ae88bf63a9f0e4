package verdict

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Outcome of one property check.
type Outcome string

// The outcomes of a check.
const (
	Held   Outcome = "held"
	Broken Outcome = "broken"
	// NotEvaluated is a check that did not run: an assumption before it
	// did not hold, or the scenario ended first. Reason says which.
	NotEvaluated Outcome = "not-evaluated"
	// NotBound is a property the subject's binding gives no means to
	// judge (an optional field it leaves out): never a pass and never a
	// finding, it is shown wherever a result is, so nobody reads a pass
	// as covering it. Reason names the missing binding.
	NotBound Outcome = "not-bound"
)

// EntryName names the Ginkgo report entries that carry records.
const EntryName = "steadystate.property"

// Record is the judgement of one property in one spec.
type Record struct {
	Property
	Outcome Outcome `json:"outcome"`
	// Reason says how it broke or why it was not evaluated, with the
	// evidence's figures (empty when it held).
	Reason string `json:"reason,omitempty"`
	// Figures are measurements, such as the convergence time.
	Figures map[string]string `json:"figures,omitempty"`
	// At is where in the spec's merged history (history.txt) the property
	// broke, as an offset from the spec's start such as "+12.304s".
	At string `json:"at,omitempty"`
}

// String is the record's one-line form, used as the report entry's
// representation: "broken invariant lostevents/no-overshoot: reason".
func (r Record) String() string {
	s := fmt.Sprintf("%s %s %s", r.Outcome, r.Stage, r.ID)
	if r.Reason != "" {
		s += ": " + r.Reason
	}
	if len(r.Figures) > 0 {
		var fs []string
		for _, k := range slices.Sorted(maps.Keys(r.Figures)) {
			fs = append(fs, k+"="+r.Figures[k])
		}
		s += " (" + strings.Join(fs, ", ") + ")"
	}
	return s
}

// BrokenIDs lists the ids of the broken records of stages other than
// assumptions, in order.
func BrokenIDs(records []Record) []string {
	var ids []string
	for _, r := range records {
		if r.Outcome == Broken && r.Stage != Assumption && !slices.Contains(ids, r.ID) {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// FailedAssumption is the first assumption that did not hold, if any.
func FailedAssumption(records []Record) (Record, bool) {
	for _, r := range records {
		if r.Stage == Assumption && r.Outcome == Broken {
			return r, true
		}
	}
	return Record{}, false
}

// Message is the short, stable failure message of a set of records: one
// line per broken property ("invariant lostevents/no-overshoot broken:
// reason"), or the assumption that did not hold, or with nothing broken
// the checks that could not be evaluated. Empty when all held.
func Message(records []Record) string {
	if a, ok := FailedAssumption(records); ok {
		return fmt.Sprintf("error: assumption %s did not hold: %s", a.ID, a.Reason)
	}
	var broken, unjudged []string
	for _, r := range records {
		switch r.Outcome {
		case Broken:
			broken = append(broken, fmt.Sprintf("%s %s broken: %s", r.Stage, r.ID, r.Reason))
		case NotEvaluated:
			unjudged = append(unjudged, fmt.Sprintf("error: %s %s not evaluated: %s", r.Stage, r.ID, r.Reason))
		}
	}
	if len(broken) > 0 {
		return strings.Join(broken, "\n")
	}
	return strings.Join(unjudged, "\n")
}
