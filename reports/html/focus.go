package html

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/judge/evidence"
)

// focusMargin is the least time shown before the first and after the
// last of what a timeline opens on: enough for the requests and Lease
// renewals just before a violation.
const focusMargin = 200 * time.Millisecond

// focus is the span a timeline opens on, what came to pass (see
// interest) widened on each side by a quarter of its length (at least
// focusMargin), within the run that ended at end. ok is false when there
// is nothing to open on, or when the span is most of the run anyway.
func focus(e *evidence.Evidence, marks []marker, end time.Time) (from, to time.Time, ok bool) {
	times := interest(e, marks)
	if len(times) == 0 {
		return from, to, false
	}
	lo, hi := times[0], times[0]
	for _, t := range times {
		lo, hi = earliest(lo, t), latest(hi, t)
	}
	margin := max(hi.Sub(lo)/4, focusMargin)
	from, to = latest(lo.Add(-margin), e.Start), earliest(hi.Add(margin), end)
	return from, to, to.Sub(from) < end.Sub(e.Start)*3/4
}

// interest is the moments a reader must see: where each property broke
// and the last fault's start or end before the first of them (a
// partition over the whole run matters where it heals, just before the
// old leader writes); with no violation, every fault's start and end.
func interest(e *evidence.Evidence, marks []marker) []time.Time {
	var edges, times []time.Time
	for _, f := range e.Faults {
		edges = append(edges, f.Start)
		if !f.End.IsZero() {
			edges = append(edges, f.End)
		}
	}
	if len(marks) == 0 {
		return edges
	}
	for _, m := range marks {
		times = append(times, m.at)
	}
	first := slices.MinFunc(times, time.Time.Compare)
	var before time.Time
	for _, t := range edges {
		if !t.After(first) && t.After(before) {
			before = t
		}
	}
	if !before.IsZero() {
		times = append(times, before)
	}
	return times
}

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// axis is the time axis below the rows: ticks at a round step, each
// labelled with its offset from the run's start.
func axis(s *svg, top int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<line class="grid" x1="%d" x2="%d" y1="%d" y2="%d"/>`, labelW, labelW+plotW, top, top)
	step := roundStep(s.end.Sub(s.start) / 6)
	first := s.start.Sub(s.run).Truncate(step)
	for d := first; ; d += step {
		t := s.run.Add(d)
		if t.After(s.end) {
			break
		}
		if t.Before(s.start) {
			continue
		}
		x := s.x(t)
		fmt.Fprintf(&b, `<line class="tick" x1="%.1f" x2="%.1f" y1="%d" y2="%d"/><text class="axis" x="%.1f" y="%d" text-anchor="middle">%s</text>`,
			x, x, top, top+4, x, top+15, d)
	}
	return b.String()
}

// roundStep is the least of 1, 2 and 5 times a power of ten milliseconds
// that is at least d.
func roundStep(d time.Duration) time.Duration {
	for step := time.Millisecond; ; step *= 10 {
		for _, m := range []time.Duration{1, 2, 5} {
			if m*step >= d {
				return m * step
			}
		}
	}
}
