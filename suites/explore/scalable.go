package explore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/schedule"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/suites/lostevents"
	"github.com/steadystate-dev/steadystate/suites/subject"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// Scale bounds: workload steps move the desired replicas within them.
const (
	minReplicas, startReplicas, maxReplicas = 1, 2, 5
	// laterScaleBound is catalog.LostLaterScale's bound.
	laterScaleBound = 30 * time.Second
)

// scalable drives a scalable workload: the lost-events suite's workload
// "web", scaled by the schedule's workload steps.
type scalable struct {
	spec *testenv.Spec
	w    *lostevents.Workload
	ns   string
	// mu guards desired and deleted: steps run on their own goroutines.
	mu      sync.Mutex
	desired int64
	// deleted: the schedule deleted a pod, which the subject may take
	// its binding's replaceWithin to replace.
	deleted bool
}

func startScalable(ctx context.Context, spec *testenv.Spec, ns string) *scalable {
	s := &scalable{spec: spec, w: lostevents.StartWorkload(ctx, spec, ns), ns: ns, desired: startReplicas}
	created := s.w.Create(ctx, s.desired)
	s.w.Healthy(ctx, created)
	return s
}

func (s *scalable) target() chaos.Target { return s.w.Target }

// limits keep every fault shorter than the subject's expectation timeout.
// Once its expectations expire, a controller acts on its cache as it is;
// events withheld for longer make even a correct one run too many pods
// (the expectations design assumes events arrive within the timeout),
// so a longer blind window would find a false alarm, not a bug.
func (s *scalable) limits() schedule.Limits {
	l := schedule.DefaultLimits
	if t := s.w.ExpectationTimeout(); t > 0 {
		l.Longest = min(l.Longest, t*3/4)
	}
	l.Replicas = len(s.w.Target.Replicas)
	if s.w.Target.Etcd == "" {
		l.Without = []string{"etcd-compaction"}
	}
	return l
}

func (s *scalable) resource(role string) string {
	if role == "workload" {
		return s.w.Resource()
	}
	return role
}

func (s *scalable) replicas(sel string) []string {
	return pick(sel, identities(s.w.Target), "")
}

// fault: a pod deletion takes the workload's newest live pod, at once:
// right after the subject's create of a pod, the pod it created.
func (s *scalable) fault(ctx context.Context, st schedule.Step) (chaos.Fault, error) {
	if st.Fault == "pod-deletion" {
		s.mu.Lock()
		s.deleted = true
		s.mu.Unlock()
		return chaos.PodDeletion{Namespace: s.ns, Selector: "!" + subject.PodLabel, Count: 1, Names: []string{s.w.NewestPod(ctx)}}, nil
	}
	return nil, nil
}

func (s *scalable) workload(ctx context.Context, st schedule.Step) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch st.Workload {
	case "scale-up":
		s.desired = min(s.desired+1, maxReplicas)
	case "scale-down":
		s.desired = max(s.desired-1, minReplicas)
	default:
		return fmt.Errorf("%s is not a scalable workload's step", st.Workload)
	}
	s.w.Scale(ctx, s.desired)
	return nil
}

func (s *scalable) phases() []string { return []string{"converged", "scaling"} }

func (s *scalable) phase() string {
	if s.w.Converged() {
		return "converged"
	}
	return "scaling"
}

// judge: status converges once the faults are recovered (within the
// expectation timeout plus the margin: a correct controller may wait out
// an expectation a lost event left; after a pod deletion, within the
// longer of it and the binding's replaceWithin, as after the lost-events
// suite's storm: a controller may back off before it replaces), a later scale change is acted on
// within 30s of when the subject's expectations could have expired, and
// there were never more live pods than replicas.
func (s *scalable) judge(ctx context.Context, recovered time.Time) {
	verify(s.spec,
		s.spec.Judged(catalog.LostHealthyBefore),
		s.spec.Converges(ctx, catalog.LostAfterFaults, func() judge.Bound {
			return s.w.Until(s.recovery(recovered))
		}, "recovery"),
		s.spec.Converges(ctx, catalog.LostLaterScale, func() judge.Bound {
			s.desired = s.desired%maxReplicas + 1
			return s.w.Until(laterScale(s.w.Scale(ctx, s.desired), recovered, s.w.ExpectationTimeout()))
		}, ""),
		s.spec.Judged(catalog.LostNoOvershoot),
	)
}

// recovery is the convergence owed once the faults are recovered.
func (s *scalable) recovery(recovered time.Time) oracle.Convergence {
	s.mu.Lock()
	defer s.mu.Unlock()
	return recoveryBound(recovered, s.w.ExpectationTimeout(), s.w.ReplaceWithin(), s.deleted)
}

// recoveryBound is the convergence owed at recovered: after a pod
// deletion, the subject may also take replaceWithin to replace it.
func recoveryBound(recovered time.Time, expectationTimeout, replaceWithin time.Duration, deleted bool) oracle.Convergence {
	if deleted {
		return testenv.AfterReplacement(recovered, expectationTimeout, replaceWithin)
	}
	return testenv.Recovery(recovered, expectationTimeout)
}

// laterScale is the bound of the later scale change made at scaled: 30s,
// counted from no earlier than the recovery plus the expectation timeout.
// A fault may leave an expectation of a create the subject never saw;
// once status has converged the scale change comes right away, and a
// correct controller acts on it only when that expectation expires (the
// ReplicaSet controller's after 5 minutes). One whose expectations never
// expire still never acts.
func laterScale(scaled, recovered time.Time, expectationTimeout time.Duration) oracle.Convergence {
	c := testenv.Within(scaled, laterScaleBound)
	if expired := recovered.Add(expectationTimeout); expired.After(scaled) {
		c.Within += expired.Sub(scaled)
	}
	return c
}

func identities(t chaos.Target) []string {
	var out []string
	for _, r := range t.Replicas {
		out = append(out, r.Identity)
	}
	return out
}
