package oracle

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"
)

// ErrNotConverged is broken eventual stable reconciliation.
var ErrNotConverged = errors.New("once the desired state stops changing, the observed state must match it within T and keep matching for W")

// Match judges one state: whether it matches the desired state, and if
// not, why (for the failure message).
type Match func(s State) (bool, string)

// Convergence checks eventual stable reconciliation over a History.
type Convergence struct {
	// Since is when the desired state last changed.
	Since time.Time
	// Within is T, the time allowed to converge.
	Within time.Duration
	// Window is W, how long the match must then hold.
	Window time.Duration
	// From says, in a verdict's words, what Since is and what of T is
	// left from it when the wait starts later than the desired state's
	// last change; "" for that change itself ("the last change (T=…)").
	From string
}

// from is what a verdict counts from: From, or the last change and T.
func (c Convergence) from() string {
	if c.From != "" {
		return c.From
	}
	return fmt.Sprintf("the last change (T=%s)", c.Within)
}

// Result is a successful convergence.
type Result struct {
	// At is when the observed state began to match for good.
	At time.Time
	// Took is At - Since: the measured convergence time.
	Took time.Duration
}

// Source is what a convergence is judged over: one History, or several
// joined as one (Join).
type Source interface {
	// StateAt is the state after every change up to and including t.
	StateAt(t time.Time) State
	// ReplayAfter calls f with the state after each change later than
	// since, in order.
	ReplayAfter(since time.Time, f func(at time.Time, s State))
	// Changes are closed at the next change: one channel for each
	// history the source reads.
	Changes() []<-chan struct{}
}

// Check judges the history as observed until now; changes recorded after
// now are left out.
func (c Convergence) Check(h Source, m Match, now time.Time) (Result, error) {
	// Intervals of matching, from the state at Since onwards.
	matching, whyAtSince := m(h.StateAt(c.Since))
	start := c.Since
	// The last mismatch's reason, from the state at Since on (a Match
	// may explain a state that matches too: that is no mismatch).
	lastWhy := ""
	if !matching {
		lastWhy = whyAtSince
	}
	var best *Result
	consider := func(end time.Time) {
		if matching && end.Sub(start) >= c.Window && best == nil {
			best = &Result{At: start, Took: start.Sub(c.Since)}
		}
	}
	h.ReplayAfter(c.Since, func(at time.Time, s State) {
		// The history may have gone on past now (a check judged after
		// later waits): what came after is not part of the verdict.
		if at.After(now) {
			return
		}
		ok, why := m(s)
		if ok == matching {
			return
		}
		consider(at)
		matching, start = ok, at
		if !ok {
			lastWhy = why
		}
	})
	consider(now)
	deadline := c.Since.Add(c.Within)
	switch {
	case best == nil && !matching:
		_, why := m(h.StateAt(now))
		return Result{}, BrokeAt(deadline, fmt.Errorf("%w: still not matching %s after %s: %s", ErrNotConverged, now.Sub(c.Since).Round(time.Millisecond), c.from(), why))
	case best == nil:
		return Result{}, BrokeAt(deadline, fmt.Errorf("%w: matching for only %s of W=%s (last mismatch: %s)", ErrNotConverged, now.Sub(start).Round(time.Millisecond), c.Window, lastWhy))
	case best.Took > c.Within:
		if c.From != "" {
			return *best, BrokeAt(deadline, fmt.Errorf("%w: converged only %s after %s", ErrNotConverged, best.Took.Round(time.Millisecond), c.From))
		}
		return *best, BrokeAt(deadline, fmt.Errorf("%w: converged only after %s, more than T=%s", ErrNotConverged, best.Took.Round(time.Millisecond), c.Within))
	}
	return *best, nil
}

// Wait watches the history until it has converged and held for the window,
// or until Since+Within+Window has passed, and returns the verdict.
func (c Convergence) Wait(ctx context.Context, h Source, m Match) (Result, error) {
	deadline := c.Since.Add(c.Within + c.Window)
	for {
		changes := h.Changes()
		now := time.Now()
		r, err := c.Check(h, m, now)
		if err == nil || now.After(deadline) {
			return r, err
		}
		// Re-check when something changes, when a window may have
		// completed, or at the deadline.
		wake := time.Until(deadline)
		if matching, _ := m(h.StateAt(now)); matching && c.Window < wake {
			wake = c.Window / 4
		}
		timer := time.NewTimer(max(wake, 10*time.Millisecond))
		cases := []reflect.SelectCase{
			{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())},
			{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(timer.C)},
		}
		for _, ch := range changes {
			cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ch)})
		}
		chosen, _, _ := reflect.Select(cases)
		timer.Stop()
		if chosen == 0 {
			return r, ctx.Err()
		}
	}
}
