package schedule

import (
	"context"
	"slices"
)

// Breaks replays a schedule and says whether it broke the property again.
// An error (the replay could not run, or was interrupted) stops the
// shrink, which returns the smallest schedule that broke so far.
type Breaks func(ctx context.Context, s Schedule) (bool, error)

// Shrunk is a shrink's outcome.
type Shrunk struct {
	Schedule Schedule
	// Replays is how many times breaks ran: a candidate met again (delta
	// debugging meets many twice) is answered from the first replay.
	Replays int
	// Path is every schedule the shrink kept, in order: the schedule it
	// began with, then each candidate that broke, the last of them
	// Schedule. A candidate kept for one lucky break of a race may
	// reproduce less often than a larger one before it: a caller that
	// wants a steady reproducer walks the path back.
	Path []Schedule
}

// Shrink reduces s, which breaks a property, to a smallest schedule that
// still breaks it: the empty schedule if it breaks, else over its steps by
// delta debugging (Zeller's ddmin: drop ever smaller chunks while the rest
// still breaks), then over when each remaining step starts (at: zeroed
// where it still breaks, else kept; a fault's for and delay are kept,
// since a fault held or delaying for no time is no fault, and whether the
// fault matters is what ddmin already judged), then, for a
// leader-elected subject, over the replicas it names (a role, leader or
// follower, for an index). Each candidate is replayed once, however often
// the search meets it; a flaky finding shrinks less, never wrongly, since
// only a replay that broke is kept.
func Shrink(ctx context.Context, s Schedule, breaks Breaks) (Shrunk, error) {
	out := Shrunk{Schedule: s, Path: []Schedule{s}}
	seen := map[string]bool{}
	try := func(c Schedule) (bool, error) {
		data, err := Marshal(c)
		if err != nil {
			return false, err
		}
		if broke, ok := seen[string(data)]; ok {
			return broke, nil
		}
		out.Replays++
		broke, err := breaks(ctx, c)
		if err == nil {
			seen[string(data)] = broke
		}
		if err == nil && broke {
			// Every search below keeps a candidate that broke.
			out.Path = append(out.Path, c)
		}
		return broke, err
	}
	// A bug that needs no fault at all breaks the empty schedule: what the
	// capability does at recovery shows it.
	if len(s.Steps) > 0 {
		empty := s
		empty.Steps = []Step{}
		broke, err := try(empty)
		if err != nil || broke {
			if broke {
				out.Schedule = empty
			}
			return out, err
		}
	}
	steps, err := ddmin(s.Steps, func(steps []Step) (bool, error) {
		c := s
		c.Steps = steps
		return try(c)
	})
	out.Schedule.Steps = steps // the smallest that broke, also when a replay could not run
	if err != nil {
		return out, err
	}
	// A start that does not matter is zeroed. One that does keeps the
	// value it broke with: a smaller one that still breaks lies nearer
	// the edge of the race, and replays less often (halving a 1.2 s delay
	// of events to 612 ms left a 25 ms margin, and 1 replay in 10 missed).
	for i := range out.Schedule.Steps {
		if out.Schedule.Steps[i].At == 0 {
			continue
		}
		c := out.Schedule
		c.Steps = slices.Clone(c.Steps)
		c.Steps[i].At = 0
		ok, err := try(c)
		if err != nil {
			return out, err
		}
		if ok {
			out.Schedule = c
		}
	}
	if s.Capability == Leader {
		if err := namedRoles(&out, try); err != nil {
			return out, err
		}
	}
	return out, ctx.Err()
}

// namedRoles puts a role in place of each replica index a leader-elected
// schedule names, where one still breaks: which index holds the Lease
// changes from run to run, "the leader" does not, so the shrunk schedule
// reproduces more often (a replay's replica 0 may be the follower).
func namedRoles(out *Shrunk, try func(Schedule) (bool, error)) error {
	for i, st := range out.Schedule.Steps {
		if st.Replica == "" || st.Replica == "leader" || st.Replica == "follower" {
			continue
		}
		for _, role := range []string{"leader", "follower"} {
			c := out.Schedule
			c.Steps = slices.Clone(c.Steps)
			c.Steps[i].Replica = role
			ok, err := try(c)
			if err != nil {
				return err
			}
			if ok {
				out.Schedule = c
				break
			}
		}
	}
	return nil
}

// ddmin is delta debugging's minimising algorithm over a list: it returns
// a 1-minimal sublist (dropping any one more element makes test fail) of
// steps, for which test holds.
func ddmin(steps []Step, test func([]Step) (bool, error)) ([]Step, error) {
	n := 2
	for len(steps) >= 2 {
		chunks := split(steps, n)
		reduced := false
		// A chunk alone, then the list without a chunk.
		for _, c := range chunks {
			if ok, err := test(c); err != nil {
				return steps, err
			} else if ok {
				steps, n, reduced = c, 2, true
				break
			}
		}
		if !reduced {
			for i := range chunks {
				rest := slices.Concat(slices.Concat(chunks[:i]...), slices.Concat(chunks[i+1:]...))
				if ok, err := test(rest); err != nil {
					return steps, err
				} else if ok {
					steps, n, reduced = rest, max(n-1, 2), true
					break
				}
			}
		}
		if !reduced {
			if n >= len(steps) {
				break
			}
			n = min(2*n, len(steps))
		}
	}
	return steps, nil
}

// split cuts steps into n chunks of near-equal length, in order.
func split(steps []Step, n int) [][]Step {
	var out [][]Step
	for i := range n {
		lo, hi := i*len(steps)/n, (i+1)*len(steps)/n
		if hi > lo {
			out = append(out, slices.Clone(steps[lo:hi]))
		}
	}
	return out
}
