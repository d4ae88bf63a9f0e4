package schedule

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"
)

// Limits bound what Generate draws.
type Limits struct {
	// Steps is the most steps a schedule has (at least one).
	Steps int
	// Horizon is the latest a step starts on the clock.
	Horizon time.Duration
	// Longest is the longest a fault stays injected, and the latest a
	// delayed event arrives.
	Longest time.Duration
	// Replicas is how many replicas the subject runs.
	Replicas int
}

// DefaultLimits draw schedules of up to 6 steps over 10s, faults of up
// to 5s, for a subject of 2 replicas.
var DefaultLimits = Limits{Steps: 6, Horizon: 10 * time.Second, Longest: 5 * time.Second, Replicas: 2}

// Generate draws a schedule for capability from seed: the same seed and
// limits draw the same schedule. Steps are faults and the capability's
// workload steps; half are placed on the clock and half right after the
// subject's next request of a kind, and their spans overlap freely.
func Generate(seed uint64, capability string, l Limits) Schedule {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	s := Schedule{Format: Format, Seed: seed, Capability: capability}
	faults, workloads := names(Faults, capability), names(Workloads, capability)
	resources := Resources[capability]
	n := 1 + rng.IntN(max(l.Steps, 1))
	for range n {
		var st Step
		var kind Kind
		// One step in four is the workload's own, when it has any.
		if len(workloads) > 0 && rng.IntN(4) == 0 {
			st.Workload = workloads[rng.IntN(len(workloads))]
			kind = Workloads[st.Workload]
		} else {
			st.Fault = faults[rng.IntN(len(faults))]
			kind = Faults[st.Fault]
		}
		st.At = roundMS(duration(rng, l.Horizon))
		if rng.IntN(2) == 0 {
			st.After = &Trigger{Verb: Verbs[rng.IntN(len(Verbs))], Resource: resources[rng.IntN(len(resources))]}
			st.At = roundMS(duration(rng, l.Horizon/10))
		}
		if kind.Takes(Resource) {
			st.Resource = resources[rng.IntN(len(resources))]
		}
		if kind.Takes(Event) {
			st.Event = Events[rng.IntN(len(Events))]
		}
		if kind.Takes(Replica) {
			st.Replica = replica(rng, l.Replicas, capability)
		}
		if kind.Takes(For) {
			st.For = roundMS(l.Longest/10 + duration(rng, l.Longest-l.Longest/10))
		}
		if kind.Takes(Delay) {
			st.Delay = roundMS(l.Longest/10 + duration(rng, l.Longest-l.Longest/10))
		}
		s.Steps = append(s.Steps, st)
	}
	// The clock's steps in order of start, then the triggered ones in
	// the order drawn.
	clock := slices.DeleteFunc(slices.Clone(s.Steps), func(st Step) bool { return st.After != nil })
	slices.SortStableFunc(clock, func(a, b Step) int { return cmp.Compare(a.At, b.At) })
	s.Steps = append(clock, slices.DeleteFunc(s.Steps, func(st Step) bool { return st.After == nil })...)
	return s
}

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
