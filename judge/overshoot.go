package judge

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/steadystate-dev/steadystate/judge/oracle"
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
// ones) is in excused (ExcusedCreates) and its excusal has not ended; one
// that outlasts its excusal (Excusal.Until), checked up to excused.End,
// is an overshoot when the excusal ends. A workload history
// where replicas never resolves gives no limit to judge against: the
// property is not evaluated.
func NoOvershoot(workload, pods []oracle.Event, replicas ReplicasOf, excused *Excused) error {
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
	// excess is an overshoot at the end of the excusals of the pods now
	// beyond the limit, when it comes before next.
	excess := func(next time.Time, after string) error {
		if limit < 0 || int64(len(live)) <= limit {
			return nil
		}
		if ends := excusalEnd(live, limit, excused); !ends.IsZero() && ends.Before(next) {
			return oracle.BrokeAt(ends, fmt.Errorf("%w: %d pods live for spec.replicas=%d when the excusal of the pods beyond it ended (%s)", ErrOvershoot, len(live), limit, after))
		}
		return nil
	}
	for _, s := range steps {
		if err := excess(s.e.At, fmt.Sprintf("before %s %s", s.e.Type, s.e.Key)); err != nil {
			return err
		}
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
		if limit >= 0 && int64(len(live)) > limit && !allExcused(live, limit, excused, s.e.At) {
			return oracle.BrokeAt(s.e.At, fmt.Errorf("%w: %d pods live for spec.replicas=%d after %s %s (rv %d)", ErrOvershoot, len(live), limit, s.e.Type, s.e.Key, s.rv))
		}
	}
	if excused != nil && !excused.End.IsZero() {
		return excess(excused.End, "the last recorded change before it")
	}
	return nil
}

// beyond are the live pods beyond limit, the newest by the revision that
// made them.
func beyond(live map[string]int64, limit int64) []string {
	keys := slices.SortedFunc(maps.Keys(live), func(a, b string) int { return cmp.Compare(live[b], live[a]) })
	return keys[:int64(len(keys))-limit]
}

// allExcused reports whether every live pod beyond limit is excused at t.
func allExcused(live map[string]int64, limit int64, excused *Excused, t time.Time) bool {
	if excused == nil || len(excused.Pods) == 0 {
		return false
	}
	for _, k := range beyond(live, limit) {
		if x, ok := excused.Pods[k]; !ok || t.After(x.Until) {
			return false
		}
	}
	return true
}

// excusalEnd is when the excusal of the pods beyond limit ends (the
// earliest of their caps), zero when not all of them are excused.
func excusalEnd(live map[string]int64, limit int64, excused *Excused) time.Time {
	if excused == nil {
		return time.Time{}
	}
	var end time.Time
	for _, k := range beyond(live, limit) {
		x, ok := excused.Pods[k]
		if !ok {
			return time.Time{}
		}
		end = earlier(end, x.Until)
	}
	return end
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
