package leader

import (
	"context"
	"errors"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// retryJitter is client-go's leader elector's jitter factor: it retries
// every RetryPeriod*(1+[0,1.2)), so a follower sees the last renewal up to
// 2.2 retry periods late and tries again up to 2.2 retry periods after the
// Lease expires. A bound without it failed a failover of 5.03s against 5s
// once in 60 self-test runs (in a bug mode whose bug is elsewhere).
const retryJitter = 1.2

func (e *Election) oneWriter() oracle.Check { return e.spec.Judged(catalog.LeaderOneWriter) }

// FailoverBound is how long after the holder dies another replica must
// hold the Lease: the lease duration, two jittered retry periods and a
// second.
func (e *Election) FailoverBound() time.Duration {
	return e.LeaseDuration.Duration + time.Duration(2*(1+retryJitter)*float64(e.RetryPeriod.Duration)) + time.Second
}

// FailoverChecked adds to failover-in-time's check the timings its bound
// is made of, among the record's figures.
func (e *Election) FailoverChecked(c oracle.Check) oracle.Check {
	c.Figures["leaseDuration"] = e.LeaseDuration.String()
	c.Figures["retryPeriod"] = e.RetryPeriod.String()
	return c
}

func leaderSpecs() {
	Describe("A leader-elected manager", Label("capability:leader-elected"), func() {
		var (
			ns   string
			spec *testenv.Spec
		)
		BeforeEach(func(ctx SpecContext) { ns, spec = testenv.NewNamespace(ctx, "leader"), testenv.Begin() })

		It("makes no leader-only writes when a non-leader shuts down gracefully", Label("fault:process-terminate"), testenv.Judges(catalog.LeaderFollowerTerminated, catalog.LeaderOneWriter), func(ctx SpecContext) {
			e := Start(ctx, spec, ns)
			follower := e.Other(e.Holder())
			// Only a follower that takes part in the election counts: its
			// proxy has seen it read the Lease.
			Eventually(func() bool {
				return slices.ContainsFunc(e.proxies[follower].Requests(), func(r proxy.Request) bool { return r.Resource == "leases" && r.Code == 200 })
			}).WithContext(ctx).WithTimeout(15*time.Second).Should(BeTrue(), follower+" should contend for the Lease")
			// A terminate that fails is in the timeline, for the premise;
			// one that cannot run at all is the harness's.
			if _, err := chaos.Inject(ctx, spec.Timeline(), chaos.ProcessFault{Replica: follower, Action: chaos.Terminate}, e.Target); errors.Is(err, chaos.ErrUnavailable) {
				Fail(err.Error())
			}
			spec.Verify(
				spec.Judged(catalog.LeaderFollowerTerminated),
				e.oneWriter(),
			)
		})

		It("fails over within the lease bound after the holder is killed", Label("fault:leader-failover"), testenv.Judges(catalog.LeaderHolderKilled, catalog.LeaderFailover, catalog.LeaderOneWriter), func(ctx SpecContext) {
			e := Start(ctx, spec, ns)
			bound := e.FailoverBound()
			// The injection is the kill; whether another replica takes the
			// Lease, and when, is failover-in-time's to judge. Its watch
			// for a new holder ends with the bound.
			inj, _ := chaos.Inject(ctx, spec.Timeline(), chaos.LeaderFailover{LeaseNamespace: e.leaseNS, LeaseName: e.leaseName, Timeout: bound}, e.Target)
			spec.Verify(
				spec.Judged(catalog.LeaderHolderKilled),
				e.FailoverChecked(spec.Converges(ctx, catalog.LeaderFailover, func() judge.Bound {
					return judge.Bound{Convergence: testenv.Within(inj.Start, bound), History: judge.HistoryLease, Want: judge.TakenOver(e.Key(), e.lease.StateAt(inj.Start)[e.Key()])}
				}, "failover")),
				e.oneWriter(),
			)
		})

		It("stops writing when partitioned, before another replica takes over", Label("fault:partition"), testenv.Judges(catalog.LeaderPartitioned, catalog.LeaderOneWriter), func(ctx SpecContext) {
			e := Start(ctx, spec, ns)
			old := e.Holder()
			oldHolder := judge.LeaseHolder(e.lease.StateAt(time.Now())[e.Key()])
			part, err := chaos.Begin(ctx, spec.Timeline(), chaos.Partition(old, true, 0), e.Target)
			Expect(err).NotTo(HaveOccurred())
			// Heal once the recorded Lease has another holder (the premise,
			// judged from the same history), or after 30s.
			_ = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
				h := judge.LeaseHolder(e.lease.StateAt(time.Now())[e.Key()])
				return h != "" && h != oldHolder, nil
			})
			healed := time.Now()
			Expect(part.End(ctx)).To(Succeed())
			// The old leader either exits (correct) or writes again; wait for
			// one or the other, then judge the writes.
			oldProxy := e.proxies[old]
			Eventually(func() bool {
				return e.replica(old).Host.Exited(ctx) || wroteSince(oldProxy, judge.LeaderOnly(e.LeaderOnly), healed)
			}).WithContext(ctx).WithTimeout(15 * time.Second).Should(BeTrue())
			spec.Verify(
				spec.Judged(catalog.LeaderPartitioned),
				e.oneWriter(),
			)
		})
	})
}

// wroteSince reports whether a replica made a leader-only write (of
// scope) after t.
func wroteSince(p proxy.Controller, scope judge.LeaderOnly, t time.Time) bool {
	return slices.ContainsFunc(p.Requests(), func(r proxy.Request) bool { return r.Start.After(t) && scope.Covers(r) })
}
