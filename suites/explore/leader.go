package explore

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/schedule"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/suites/leader"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// failoverTimeout bounds a leader failover's wait for a new holder.
const failoverTimeout = 30 * time.Second

// elected drives a leader-elected manager: the leader suite's election,
// with no workload steps of its own.
type elected struct {
	spec *testenv.Spec
	e    *leader.Election
}

func startLeader(ctx context.Context, spec *testenv.Spec, ns string) *elected {
	return &elected{spec: spec, e: leader.Start(ctx, spec, ns)}
}

func (l *elected) target() chaos.Target { return l.e.Target }

// limits let a fault outlast the Lease, so a partitioned leader can lose
// it while it stays cut off.
func (l *elected) limits() schedule.Limits {
	lim := schedule.DefaultLimits
	lim.Replicas = len(l.e.Target.Replicas)
	lim.Longest = max(lim.Longest, 2*l.e.LeaseDuration.Duration)
	lim.Horizon = max(lim.Horizon, lim.Longest)
	if l.e.Target.Etcd == "" {
		lim.Without = []string{"etcd-compaction"}
	}
	return lim
}

func (l *elected) resource(role string) string { return role }

func (l *elected) replicas(sel string) []string {
	holder := ""
	if sel == "leader" || sel == "follower" {
		holder = l.e.Holder()
	}
	return pick(sel, identities(l.e.Target), holder)
}

func (l *elected) fault(_ context.Context, st schedule.Step) (chaos.Fault, error) {
	if st.Fault == "leader-failover" {
		ns, name := l.e.Lease()
		return chaos.LeaderFailover{LeaseNamespace: ns, LeaseName: name, Timeout: failoverTimeout}, nil
	}
	return nil, nil
}

func (l *elected) workload(_ context.Context, st schedule.Step) error {
	return fmt.Errorf("a leader-elected manager has no workload step %s", st.Workload)
}

func (l *elected) phases() []string { return []string{"held", "unheld"} }

func (l *elected) phase() string {
	if l.e.Holder() != "" {
		return "held"
	}
	return "unheld"
}

// judge: when the schedule killed the holder (a leader-failover that
// acted), a replica holds the Lease, renewed after the last such kill,
// within the failover bound of the recovery (failover-in-time: a failover
// that never came is broken, not passed); and every leader-only write over
// the whole history was made by the replica holding a valid Lease then.
// The history runs on after the recovery until a replica holds the Lease
// (within T) and for one lease duration more: a replica that lost the
// Lease while cut off writes, if it does, once it is back.
func (l *elected) judge(ctx context.Context, recovered time.Time) {
	var checks []oracle.Check
	if kill, ok := lastKill(l.spec.Evidence().Snapshot().Faults); ok {
		bound := l.e.FailoverBound()
		checks = append(checks, l.e.FailoverChecked(l.spec.Converges(ctx, catalog.LeaderFailover, func() judge.Bound {
			return judge.Bound{Convergence: testenv.Within(recovered, bound), History: judge.HistoryLease, Want: judge.RenewedAfter(l.e.Key(), kill)}
		}, "recovery")))
	}
	_ = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, testenv.Current.Converge, true, func(context.Context) (bool, error) {
		return l.e.Holder() != "", nil
	})
	until(ctx, time.Now().Add(l.e.LeaseDuration.Duration))
	verify(l.spec, append(checks, l.spec.Judged(catalog.LeaderOneWriter))...)
}

// lastKill is when the last leader failover that acted (its kill did not
// fail) began.
func lastKill(faults []chaos.Injection) (time.Time, bool) {
	var at time.Time
	for _, inj := range faults {
		if inj.Fault == (chaos.LeaderFailover{}).Name() && inj.Error == "" && inj.Start.After(at) {
			at = inj.Start
		}
	}
	return at, !at.IsZero()
}
