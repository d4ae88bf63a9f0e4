package schedule

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"time"
)

// step is a step of the named fault or workload step with its parameters
// drawn; a fault held for a while holds for up to longest.
func (g *generator) step(name string, longest time.Duration) Step {
	st := Step{Fault: name}
	kind, ok := Faults[name]
	if !ok {
		st = Step{Workload: name}
		kind = Workloads[name]
	}
	if kind.Takes(Resource) {
		resources := g.answered
		if slices.Contains(watchFaults, name) {
			resources = g.watched
		}
		st.Resource = g.oneOf(resources)
	}
	if kind.Takes(Event) {
		st.Event = g.oneOf(Events)
	}
	if kind.Takes(Replica) {
		st.Replica = replica(g.rng, g.l.Replicas, g.capability)
	}
	longest = max(longest, g.l.Longest/4)
	// At least a millisecond: a fault held or delaying for no time is
	// refused (Validate), however small the limits.
	if kind.Takes(For) {
		st.For = max(roundMS(longest/10+g.duration(longest-longest/10)), time.Millisecond)
	}
	if kind.Takes(Delay) {
		st.Delay = max(roundMS(g.l.Longest/10+g.duration(g.l.Longest-g.l.Longest/10)), time.Millisecond)
	}
	return st
}

// place puts st on the clock in [from, from+span), or, half the time,
// right after the subject's next request of a kind.
func (g *generator) place(st *Step, from, span time.Duration) {
	if g.rng.IntN(2) == 0 {
		g.after(st, "")
		return
	}
	st.At = roundMS(from + g.duration(span))
}

// after places st right after the subject's next request of a kind it
// makes (of resource, when it makes one of that), with at most a tenth of
// the horizon's delay; on the clock when it makes none (Limits.Unmade).
func (g *generator) after(st *Step, resource string) {
	requests := g.requests
	if len(requests) == 0 {
		st.At = roundMS(g.duration(g.l.Horizon))
		return
	}
	if of := slices.DeleteFunc(slices.Clone(requests), func(t Trigger) bool { return t.Resource != resource }); len(of) > 0 {
		requests = of
	}
	t := requests[g.rng.IntN(len(requests))]
	st.After = &t
	st.At = 0
	if g.rng.IntN(2) == 0 {
		st.At = roundMS(g.duration(g.l.Horizon / 10))
	}
}

func (g *generator) oneOf(list []string) string { return list[g.rng.IntN(len(list))] }

func (g *generator) duration(upTo time.Duration) time.Duration { return duration(g.rng, upTo) }

// replica is every replica (""), one by index, or, for a leader-elected
// subject, the leader or a follower.
func replica(rng *rand.Rand, replicas int, capability string) string {
	choices := []string{""}
	for i := range max(replicas, 1) {
		choices = append(choices, strconv.Itoa(i))
	}
	if capability == Leader {
		choices = append(choices, "leader", "follower")
	}
	return choices[rng.IntN(len(choices))]
}

func duration(rng *rand.Rand, upTo time.Duration) time.Duration {
	if upTo <= 0 {
		return 0
	}
	return time.Duration(rng.Int64N(int64(upTo)))
}

// roundMS keeps schedule files readable: 2.345s, not 2.345678901s.
func roundMS(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
