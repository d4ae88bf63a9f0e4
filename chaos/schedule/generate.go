package schedule

import (
	"cmp"
	"maps"
	"math/rand/v2"
	"slices"
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
	// Without are faults and workload steps not to draw: those the run
	// cannot do (etcd compaction where etcd is out of reach, a successor
	// claim where the harness controls no external name).
	Without []string
	// Watched and Requested are, for a reconciledObjects subject, what its
	// controller was seen to use beyond the roles (what the fault-free
	// reference run's proxy recorded): the resources it watched, by name
	// (secrets), and the requests it made (create of
	// certificaterequests). Watch faults draw their resource among the
	// roles and Watched, answer faults among the roles and the resources
	// of both, triggers among the capability's Requests and Requested.
	// Any other capability's roles name every resource it uses, and
	// these are not drawn for it (Uses). None: the draw is the roles'.
	Watched   []string
	Requested []Trigger
	// Unmade are requests of the capability's own (Requests) the
	// subject was seen not to make (a reconciledObjects controller that never
	// deletes what it owns, in its fault-free reference run): triggers
	// are not drawn on them, which would wait out their bound and leave
	// their step undone. A step drawn after a request when none is left
	// is placed on the clock. None: every one is drawn.
	Unmade []Trigger
	// Chains are, for a reconciledObjects subject, the writes of each resource
	// its controller made in the fault-free reference run from the
	// objects' application on: the refused-once pattern aims half its
	// refusals at one of them (Step.Nth), most often the last, after
	// which no event of its own comes back to a controller that dropped
	// the error. None: every refusal is the next write's.
	Chains []Chain
	// Pattern is the one pattern to draw every schedule in (one of
	// Patterns); "" draws the mix of Sieve's three, as it always has.
	Pattern string
}

// Chain is how many writes (create, update, patch, delete,
// deletecollection; a status write is the resource's) of Resource a
// subject made in a fault-free run from its objects' application on, and
// how long after the application the last one came.
type Chain struct {
	Resource string        `json:"resource"`
	Writes   int           `json:"writes"`
	Last     time.Duration `json:"last"`
}

// DefaultLimits draw schedules of up to 8 steps over 6s, faults of up to
// 4s, for a subject of 2 replicas.
var DefaultLimits = Limits{Steps: 8, Horizon: 6 * time.Second, Longest: 4 * time.Second, Replicas: 2}

// Patterns are the shapes Generate draws a schedule in, after Sieve's
// testing strategies for controllers (Sun et al., OSDI '22), in faults
// this package has:
//   - "unobserved": the subject is blind to a resource for a window (a
//     stalled watch, dropped or late events) while the workload changes
//     and what the subject just did is undone under it, and the window
//     may end with a relist instead of the missed events;
//   - "crash": the subject is stopped, restarted, cut off or failed over
//     right after one of its own requests (an intermediate state), while
//     the workload changes;
//   - "any": steps drawn independently from the whole vocabulary;
//   - "refused-once" (RefusedOnce), drawn only when asked for
//     (Limits.Pattern): after the workload changes, one or two of the
//     subject's writes each refused once (Aimed), with nothing else
//     disturbing it. Aimed at a controller that drops a refused write's
//     error and forgets its key at the step after which no event will
//     come (the last scale-down of a rollout, a cleanup): it waits for an
//     event that never comes, where a correct one retries at once. With
//     the reference run's chains of writes (Limits.Chains), half the
//     refusals are the nth write of a resource counted from the
//     application, half of those the chain's last.
var Patterns = []string{"unobserved", "crash", "any", RefusedOnce}

// RefusedOnce is the pattern of writes refused once (Patterns).
const RefusedOnce = "refused-once"

// Generate draws a schedule for capability from seed: the same seed and
// limits draw the same schedule. The seed picks one of Sieve's three
// patterns (Patterns), unless the limits name one, and the pattern its
// steps: faults and the capability's workload steps,
// placed on the clock or right after the subject's next request of a
// kind, their spans overlapping freely.
func Generate(seed uint64, capability string, l Limits) Schedule {
	g := generator{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), capability: capability, l: l}
	g.faults = slices.DeleteFunc(names(Faults, capability), func(f string) bool {
		return slices.Contains(l.Without, f) || (l.Pattern != RefusedOnce && slices.Contains(Aimed, f))
	})
	g.workloads = slices.DeleteFunc(names(Workloads, capability), func(w string) bool { return slices.Contains(l.Without, w) })
	g.used(l)
	var steps []Step
	// Half the schedules are unobserved windows, where lost events live.
	pattern := l.Pattern
	if pattern == "" {
		pattern = []string{"unobserved", "unobserved", "crash", "any"}[g.rng.IntN(4)]
	}
	switch pattern {
	case RefusedOnce:
		steps = g.refusedOnce()
	case "unobserved":
		steps = g.unobserved()
	case "crash":
		steps = g.crash()
	default:
		steps = g.any()
	}
	if len(steps) > max(l.Steps, 1) {
		steps = steps[:max(l.Steps, 1)]
	}
	// The clock's steps in order of start, then the triggered ones in
	// the order drawn.
	clock := slices.DeleteFunc(slices.Clone(steps), func(st Step) bool { return st.After != nil })
	slices.SortStableFunc(clock, func(a, b Step) int { return cmp.Compare(a.At, b.At) })
	return Schedule{Format: Format, Seed: seed, Capability: capability,
		Steps: append(clock, slices.DeleteFunc(steps, func(st Step) bool { return st.After == nil })...)}
}

// generator draws one schedule's steps.
type generator struct {
	rng               *rand.Rand
	capability        string
	l                 Limits
	faults, workloads []string
	// watched are the resources a watch fault draws among, answered an
	// answer fault's, requests the triggers: the roles first, then what
	// the subject was seen to use beyond them (Limits.Watched,
	// Requested), in order.
	watched, answered []string
	requests          []Trigger
}

// watchFaults are the faults on a resource's watch; the other faults
// that take a resource answer its requests.
var watchFaults = []string{"watch-stall", "watch-cut", "watch-reset", "forced-relist", "event-drop", "event-delay"}

// used sets what the schedule's resources and triggers are drawn among
// (drawable).
func (g *generator) used(l Limits) {
	g.watched, g.answered, g.requests = drawable(g.capability, l)
}

// Drawn are the resources Generate draws fault's resource among for a
// subject of capability: none for a fault that takes none; for a counted
// one (Nth), the chains' resources too.
func Drawn(capability, fault string, l Limits) []string {
	if !Faults[fault].Takes(Resource) {
		return nil
	}
	watched, answered, _ := drawable(capability, l)
	if slices.Contains(watchFaults, fault) {
		return watched
	}
	if Faults[fault].Takes(Nth) {
		for _, c := range l.Chains {
			if !slices.Contains(answered, c.Resource) {
				answered = append(answered, c.Resource)
			}
		}
	}
	return answered
}

// drawable are the resources a watch fault and an answer fault draw
// among, and the requests a trigger does, for a subject of capability:
// the capability's roles and requests, then those of l.Watched and
// l.Requested the capability may name that are not among them, sorted, so
// the draw depends on what they hold, not their order.
func drawable(capability string, l Limits) (watched, answered []string, requests []Trigger) {
	roles := Resources[capability]
	extra := func(res string) bool { return !slices.Contains(roles, res) && Uses(capability, res) }
	var seen, written []string
	var made []Trigger
	for _, res := range l.Watched {
		if extra(res) {
			seen = append(seen, res)
		}
	}
	for _, t := range l.Requested {
		if extra(t.Resource) && slices.Contains(Verbs, t.Verb) {
			made = append(made, Trigger{Verb: t.Verb, Resource: t.Resource})
			written = append(written, t.Resource)
		}
	}
	slices.Sort(seen)
	seen = slices.Compact(seen)
	slices.SortFunc(made, func(a, b Trigger) int {
		return cmp.Or(cmp.Compare(a.Resource, b.Resource), cmp.Compare(a.Verb, b.Verb))
	})
	watched = append(slices.Clone(roles), seen...)
	answered = append(slices.Clone(roles), slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(seen), written...))))...)
	own := slices.DeleteFunc(slices.Clone(Requests[capability]), func(t Trigger) bool { return slices.Contains(l.Unmade, t) })
	requests = append(own, slices.Compact(made)...)
	return watched, answered, requests
}

// any draws up to Steps steps independently: one in four a workload step
// (when the capability has any), half of them placed after a request.
func (g *generator) any() []Step {
	var steps []Step
	for range 1 + g.rng.IntN(max(g.l.Steps, 1)) {
		name := g.oneOf(g.faults)
		if len(g.workloads) > 0 && g.rng.IntN(4) == 0 {
			name = g.oneOf(g.workloads)
		}
		st := g.step(name, g.l.Longest)
		g.place(&st, 0, g.l.Horizon)
		steps = append(steps, st)
	}
	return steps
}

// The faults each pattern is made of.
var (
	blinding = []string{"watch-stall", "event-drop", "event-delay"}
	relists  = []string{"forced-relist", "watch-reset"}
	stopping = []string{"process-kill", "process-terminate", "process-restart", "leader-failover", "partition-refuse", "partition-blackhole", "answer-429", "answer-500"}
	// undoing is, by resource, the step that undoes what the subject
	// just made of it; answer-409 (its write refused) elsewhere.
	undoing = map[string]string{"pods": "pod-deletion", "claims": "delete-claim"}
)

// PatternFaults are the faults a schedule of pattern draws its faults
// among, beside the capability's workload steps: nil for the mix ("")
// and "any", which draw among every fault but the aimed ones. A subject
// offered none of a pattern's faults has its schedules drawn among every
// fault instead.
func PatternFaults(pattern string) []string {
	switch pattern {
	case "unobserved":
		return slices.Concat(blinding, relists, slices.Sorted(maps.Values(undoing)), []string{"answer-409"})
	case "crash":
		return slices.Clone(stopping)
	case RefusedOnce:
		return slices.Clone(Aimed)
	}
	return nil
}

// unobserved: one or two episodes, one after the other. In each, a
// blinding fault on one resource for a window; inside it a workload step,
// most often an undoing step right after the subject's next create of that
// resource, and most often a relist before the window ends.
func (g *generator) unobserved() []Step {
	var steps []Step
	from := roundMS(g.duration(g.l.Horizon / 4))
	for range 1 + g.rng.IntN(2) {
		episode, end := g.episode(from)
		steps = append(steps, episode...)
		from = end + roundMS(g.duration(g.l.Horizon/10))
	}
	return steps
}

// episode is one blind window starting at from, and when it ends.
func (g *generator) episode(from time.Duration) ([]Step, time.Duration) {
	window := roundMS(g.l.Longest/2 + g.duration(g.l.Longest/2))
	blind := g.step(g.oneOf(g.usable(blinding)), window)
	blind.At, blind.For = from, window
	if blind.Event != "" && g.rng.IntN(4) == 0 {
		blind.Event = "" // every event type
	}
	steps := []Step{blind}
	inside := func() time.Duration { return roundMS(from + g.duration(window/2)) }
	if len(g.workloads) > 0 {
		st := g.step(g.oneOf(g.workloads), 0)
		st.At = inside()
		steps = append(steps, st)
	}
	if g.rng.IntN(4) > 0 {
		steps = append(steps, g.undo(blind.Resource, from, inside))
	}
	if relist := g.usable(relists); g.rng.IntN(4) > 0 {
		st := g.step(g.oneOf(relist), 0)
		if st.Resource != "" {
			st.Resource = blind.Resource
		}
		if Faults[st.Fault].Takes(Replica) {
			st.Replica = blind.Replica
		}
		st.At = roundMS(from + window - g.duration(window/4))
		steps = append(steps, st)
	}
	return steps, from + window
}

// undo is the step that undoes what the subject makes of resource, right
// after its next create of it once from has passed (or another request of
// it, or inside the window on the clock).
func (g *generator) undo(resource string, from time.Duration, inside func() time.Duration) Step {
	name, ok := undoing[resource]
	if !ok || !slices.Contains(append(slices.Clone(g.faults), g.workloads...), name) {
		name = "answer-409"
	}
	st := g.step(name, g.l.Longest/2)
	if st.Resource != "" {
		st.Resource = resource
	}
	if g.rng.IntN(4) == 0 {
		st.At = inside()
		return st
	}
	requests := slices.DeleteFunc(slices.Clone(g.requests), func(t Trigger) bool { return t.Resource != resource })
	creates := slices.DeleteFunc(slices.Clone(requests), func(t Trigger) bool { return t.Verb != "create" })
	switch {
	case len(creates) > 0:
		requests = creates
	case len(requests) == 0:
		st.At = inside()
		return st
	}
	t := requests[g.rng.IntN(len(requests))]
	t.From = from
	st.After, st.At = &t, 0
	return st
}

// crash: one to three stopping faults, each right after a request of the
// subject (or on the clock), with workload steps on the clock.
func (g *generator) crash() []Step {
	var steps []Step
	stop := g.usable(stopping)
	for range 1 + g.rng.IntN(3) {
		st := g.step(g.oneOf(stop), g.l.Longest)
		g.after(&st, "")
		if g.rng.IntN(4) == 0 {
			st.After, st.At = nil, roundMS(g.duration(g.l.Horizon))
		}
		steps = append(steps, st)
	}
	for range g.rng.IntN(3) {
		if len(g.workloads) == 0 {
			break
		}
		st := g.step(g.oneOf(g.workloads), 0)
		st.At = roundMS(g.duration(g.l.Horizon))
		steps = append(steps, st)
	}
	return steps
}

// refusedOnce: the workload changes (when the capability has workload
// steps), then one or two writes of the subject are refused once each,
// each of a resource it writes: half the time its first write of the
// resource after the change (armed with the change), half the time the
// write of it after one of its requests of the same resource made from
// the change on, up to the longest fault later (a later write of a chain,
// such as the old ReplicaSet's last scale-down of a rollout).
func (g *generator) refusedOnce() []Step {
	var steps []Step
	var from time.Duration
	if len(g.workloads) > 0 {
		st := g.step(g.oneOf(g.workloads), 0)
		st.At = roundMS(g.duration(g.l.Horizon / 4))
		from = st.At
		steps = append(steps, st)
	}
	refuse := g.usable(Aimed)
	for range 1 + g.rng.IntN(2) {
		st := g.step(g.oneOf(refuse), g.l.Longest)
		if len(g.l.Chains) > 0 && Faults[st.Fault].Takes(Nth) && g.rng.IntN(2) == 0 {
			// Counted from the application, on every replica (the one
			// that writes counts): the chain's last write, or any.
			c := g.l.Chains[g.rng.IntN(len(g.l.Chains))]
			st.Resource, st.Replica, st.At, st.Nth = c.Resource, "", 0, c.Writes
			if c.Writes > 1 && g.rng.IntN(2) == 0 {
				st.Nth = 1 + g.rng.IntN(c.Writes)
			}
			st.For = roundMS(c.Last + g.l.Longest)
			steps = append(steps, st)
			continue
		}
		if len(g.requests) > 0 && Faults[st.Fault].Takes(Resource) {
			st.Resource = g.requests[g.rng.IntN(len(g.requests))].Resource
		}
		if g.rng.IntN(2) == 0 {
			st.At = from
			steps = append(steps, st)
			continue
		}
		g.after(&st, st.Resource)
		if st.After != nil {
			st.After.From = roundMS(from + g.duration(g.l.Longest))
		} else {
			st.At = roundMS(from + g.duration(g.l.Longest))
		}
		steps = append(steps, st)
	}
	return steps
}

// usable are the names of kinds that this schedule may draw (faults for
// the capability, not left out; its workload steps); when none is, every
// fault it may draw.
func (g *generator) usable(kinds []string) []string {
	var out []string
	for _, k := range kinds {
		if slices.Contains(g.faults, k) || slices.Contains(g.workloads, k) {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		return g.faults
	}
	return out
}
