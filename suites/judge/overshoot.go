package judge

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/steadystate-dev/steadystate/suites/oracle"
)

// ErrOvershoot is the safety property of scaling.
var ErrOvershoot = errors.New("a scalable workload must never run more pods than spec.replicas")

// ReplicasOf reads the desired replicas of the workload from one of its
// recorded states.
type ReplicasOf func(e oracle.Event) (int64, bool)

// NoOvershoot replays the workload's and its pods' histories together, in
// the order the API server stored the changes (resource versions of one
// store; the two recorders' arrival times could interleave wrongly), and
// fails at the first moment more pods were live than spec.replicas. After
// a scale-down the old limit holds until the pods above it are gone. An
// excess is excused while every pod beyond the limit (the newest live
// ones) is in excused (ExcusedCreates); it may last until the controller
// removes it, whether it converges is judged apart. A workload history
// where replicas never resolves gives no limit to judge against: the
// property is not evaluated.
func NoOvershoot(workload, pods []oracle.Event, replicas ReplicasOf, excused map[string]string) error {
	type step struct {
		e        oracle.Event
		rv       int64
		workload bool
	}
	var steps []step
	for _, e := range workload {
		steps = append(steps, step{e, e.Revision(), true})
	}
	for _, e := range pods {
		steps = append(steps, step{e, e.Revision(), false})
	}
	slices.SortStableFunc(steps, func(a, b step) int { return cmp.Compare(a.rv, b.rv) })
	if !slices.ContainsFunc(workload, func(e oracle.Event) bool { _, ok := replicas(e); return ok }) {
		return fmt.Errorf("%w: the workload's desired replicas never resolve in its %d recorded event(s): no limit to judge the pods against", oracle.ErrNotEvaluated, len(workload))
	}
	live := map[string]int64{} // by key: the revision that made it
	var limit, pending int64 = -1, -1
	for _, s := range steps {
		if s.workload {
			if n, ok := replicas(s.e); ok && s.e.Type != "DELETED" {
				switch {
				case n >= limit:
					limit, pending = n, -1
				default:
					pending = n
				}
			}
			continue
		}
		switch _, ok := live[s.e.Key]; {
		case s.e.Type == "DELETED" || s.e.Object.GetDeletionTimestamp() != nil:
			delete(live, s.e.Key)
		case !ok:
			live[s.e.Key] = s.rv
		}
		if pending >= 0 && int64(len(live)) <= pending {
			limit, pending = pending, -1
		}
		if limit >= 0 && int64(len(live)) > limit && !allExcused(live, limit, excused) {
			return oracle.BrokeAt(s.e.At, fmt.Errorf("%w: %d pods live for spec.replicas=%d after %s %s (rv %d)", ErrOvershoot, len(live), limit, s.e.Type, s.e.Key, s.rv))
		}
	}
	return nil
}

// allExcused reports whether every live pod beyond limit, the newest by
// the revision that made them, is excused.
func allExcused(live map[string]int64, limit int64, excused map[string]string) bool {
	if len(excused) == 0 {
		return false
	}
	keys := slices.SortedFunc(maps.Keys(live), func(a, b string) int { return cmp.Compare(live[b], live[a]) })
	for _, k := range keys[:int64(len(keys))-limit] {
		if _, ok := excused[k]; !ok {
			return false
		}
	}
	return true
}

// SpecReplicas reads the desired replicas of the workload key at a dotted
// field path.
func SpecReplicas(key, path string) ReplicasOf {
	return func(e oracle.Event) (int64, bool) {
		if e.Key != key || e.Object == nil {
			return 0, false
		}
		n, err := intAt(e.Object, path)
		return n, err == nil
	}
}
