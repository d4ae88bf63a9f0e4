package oracle

import (
	"errors"
	"fmt"
	"time"

	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// Figures are what a check measured (e.g. "took": "1.2s"); a check's Run
// fills the map it was given.
type Figures map[string]string

// Check is one property check of a scenario.
type Check struct {
	Property verdict.Property
	// Run judges the property: nil when it held, otherwise why it broke.
	// An error wrapped with BrokeAt says when.
	Run func() error
	// Figures, when set, are filled by Run and kept in the record.
	Figures Figures
}

// ErrNotEvaluated marks a check that could not judge its property (what it
// needed did not happen); wrap it with the reason.
var ErrNotEvaluated = errors.New("not evaluated")

// Violation is a broken property with the moment it broke.
type Violation struct {
	At  time.Time
	Err error
}

func (v *Violation) Error() string { return v.Err.Error() }
func (v *Violation) Unwrap() error { return v.Err }

// BrokeAt says that err broke at t, so the record can point into the
// merged history.
func BrokeAt(t time.Time, err error) error {
	if err == nil {
		return nil
	}
	return &Violation{At: t, Err: err}
}

// Validate evaluates every check and returns one record per check, in
// stage order: assumptions, then convergence, then invariants. Every
// stage is evaluated, so a broken convergence never hides a broken
// invariant; only an assumption that did not hold, or could not be
// judged, stops the rest (they are recorded as not evaluated: the
// scenario did not set up what it tests, or cannot show it did). Offsets in the records are from base, the spec's start.
func Validate(base time.Time, checks ...Check) []verdict.Record {
	var out []verdict.Record
	failed := ""
	for _, stage := range []verdict.Stage{verdict.Assumption, verdict.Convergence, verdict.Invariant} {
		for _, c := range checks {
			if c.Property.Stage != stage {
				continue
			}
			if failed != "" {
				out = append(out, verdict.Record{Property: c.Property, Outcome: verdict.NotEvaluated, Reason: "assumption " + failed})
				continue
			}
			r := Judge(base, c.Property, c.Run())
			if len(c.Figures) > 0 {
				r.Figures = c.Figures
			}
			out = append(out, r)
		}
		// An assumption that did not hold, or could not be judged, stops
		// the rest: what they judge rests on what it states.
		for _, r := range out {
			if r.Stage == verdict.Assumption && failed == "" {
				switch r.Outcome {
				case verdict.Broken:
					failed = r.ID + " did not hold"
				case verdict.NotEvaluated:
					failed = r.ID + " was not evaluated"
				}
			}
		}
	}
	return out
}

// Judge makes the record of one property from its check's error.
func Judge(base time.Time, p verdict.Property, err error) verdict.Record {
	r := verdict.Record{Property: p, Outcome: verdict.Held}
	if err == nil {
		return r
	}
	r.Outcome, r.Reason = verdict.Broken, err.Error()
	if errors.Is(err, ErrNotEvaluated) {
		r.Outcome = verdict.NotEvaluated
	}
	var v *Violation
	if errors.As(err, &v) && !v.At.IsZero() {
		r.At = fmt.Sprintf("%+.3fs", v.At.Sub(base).Seconds())
	}
	return r
}
