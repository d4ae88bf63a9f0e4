package leader

import (
	"context"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/steadystate-dev/steadystate/catalog"
	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/suites/judge"
	"github.com/steadystate-dev/steadystate/suites/oracle"
	"github.com/steadystate-dev/steadystate/suites/subject"
	"github.com/steadystate-dev/steadystate/suites/subjectfile"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// retryJitter is client-go's leader elector's jitter factor: it retries
// every RetryPeriod*(1+[0,1.2)), so a follower sees the last renewal up to
// 2.2 retry periods late and tries again up to 2.2 retry periods after the
// Lease expires. A bound without it failed a failover of 5.03s against 5s
// once in 60 self-test runs (in a bug mode whose bug is elsewhere).
const retryJitter = 1.2

// election is the subject's replicas electing in the spec's namespace,
// and the recorded history of their Lease.
type election struct {
	*subjectfile.LeaderElected
	leaseNS, leaseName string
	target             chaos.Target
	lease              *oracle.History
	proxies            map[string]proxy.Controller
}

// start runs the subject's managers (the spec is skipped when the subject
// is not leader-elected) and waits for a holder.
func start(ctx context.Context, ns string) *election {
	s := subject.LeaderElected()
	e := &election{LeaderElected: s.Election(), proxies: map[string]proxy.Controller{}}
	var err error
	e.leaseNS, e.leaseName, err = subject.Lease(e.LeaderElected, ns)
	Expect(err).NotTo(HaveOccurred())
	e.lease = testenv.RecordAs(ctx, judge.HistoryLease, dynamic.NewForConfigOrDie(testenv.Get().REST), coordinationv1.SchemeGroupVersion.WithResource("leases"), e.leaseNS, "")
	testenv.Fact(judge.FactLease, e.key())
	e.target = s.StartManagers(ctx, ns)
	for _, r := range e.target.Replicas {
		e.proxies[r.Identity] = r.Proxy
	}
	Eventually(e.holder).WithContext(ctx).WithTimeout(30*time.Second).ShouldNot(BeEmpty(),
		"a replica should take Lease %s/%s, through its own proxy", e.leaseNS, e.leaseName)
	return e
}

// holder is the replica holding the Lease, "" while nobody does. The
// holder identity is the controller's own choice; the replica is the one
// whose Lease writes were answered with it (chaos.Target.Holding).
func (e *election) holder() string {
	l, err := testenv.Get().Kube.CoordinationV1().Leases(e.leaseNS).Get(context.Background(), e.leaseName, metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	r, _ := e.target.Holding(*l.Spec.HolderIdentity)
	return r.Identity
}

// key is the Lease's key in the recorded history.
func (e *election) key() string { return e.leaseNS + "/" + e.leaseName }

func (e *election) replica(identity string) chaos.Replica {
	for _, r := range e.target.Replicas {
		if r.Identity == identity {
			return r
		}
	}
	Fail("no replica " + identity)
	return chaos.Replica{}
}

func (e *election) other(identity string) string {
	for _, r := range e.target.Replicas {
		if r.Identity != identity {
			return r.Identity
		}
	}
	return ""
}

func (e *election) oneWriter() oracle.Check { return testenv.Judged(catalog.LeaderOneWriter) }

func leaderSpecs() {
	Describe("A leader-elected manager", Label("capability:leader-elected"), func() {
		var ns string
		BeforeEach(func(ctx SpecContext) { ns = testenv.NewNamespace(ctx, "leader") })

		It("makes no leader-only writes when a non-leader shuts down gracefully", Label("fault:process-terminate"), func(ctx SpecContext) {
			e := start(ctx, ns)
			follower := e.other(e.holder())
			// Only a follower that takes part in the election counts: its
			// proxy has seen it read the Lease.
			Eventually(func() bool {
				return slices.ContainsFunc(e.proxies[follower].Requests(), func(r proxy.Request) bool { return r.Resource == "leases" && r.Code == 200 })
			}).WithContext(ctx).WithTimeout(15*time.Second).Should(BeTrue(), follower+" should contend for the Lease")
			// A terminate that fails is in the timeline, for the premise.
			chaos.Inject(ctx, testenv.Timeline(), chaos.ProcessFault{Replica: follower, Action: chaos.Terminate}, e.target)
			testenv.Verify(
				testenv.Judged(catalog.LeaderFollowerTerminated),
				e.oneWriter(),
			)
		})

		It("fails over within the lease bound after the holder is killed", Label("fault:leader-failover"), func(ctx SpecContext) {
			e := start(ctx, ns)
			inj, _ := chaos.Inject(ctx, testenv.Timeline(), chaos.LeaderFailover{LeaseNamespace: e.leaseNS, LeaseName: e.leaseName, Timeout: 30 * time.Second}, e.target)
			bound := e.LeaseDuration.Duration + time.Duration(2*(1+retryJitter)*float64(e.RetryPeriod.Duration)) + time.Second
			testenv.Verify(
				testenv.Judged(catalog.LeaderHolderKilled),
				testenv.Converges(ctx, catalog.LeaderFailover, func() judge.Bound {
					return judge.Bound{Convergence: testenv.Within(inj.Start, bound), History: judge.HistoryLease, Want: judge.TakenOver(e.key(), e.lease.StateAt(inj.Start)[e.key()])}
				}, "failover"),
				e.oneWriter(),
			)
		})

		It("stops writing when partitioned, before another replica takes over", Label("fault:partition"), func(ctx SpecContext) {
			e := start(ctx, ns)
			old := e.holder()
			oldHolder := judge.LeaseHolder(e.lease.StateAt(time.Now())[e.key()])
			part, err := chaos.Begin(ctx, testenv.Timeline(), chaos.Partition(old, true, 0), e.target)
			Expect(err).NotTo(HaveOccurred())
			// Heal once the recorded Lease has another holder (the premise,
			// judged from the same history), or after 30s.
			wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
				h := judge.LeaseHolder(e.lease.StateAt(time.Now())[e.key()])
				return h != "" && h != oldHolder, nil
			})
			healed := time.Now()
			Expect(part.End(ctx)).To(Succeed())
			// The old leader either exits (correct) or writes again; wait for
			// one or the other, then judge the writes.
			oldProxy := e.proxies[old]
			Eventually(func() bool {
				return e.replica(old).Host.Exited(ctx) || wroteSince(oldProxy, healed)
			}).WithContext(ctx).WithTimeout(15 * time.Second).Should(BeTrue())
			testenv.Verify(
				testenv.Judged(catalog.LeaderPartitioned),
				e.oneWriter(),
			)
		})
	})
}

// wroteSince reports whether a replica made a leader-only write after t.
func wroteSince(p proxy.Controller, t time.Time) bool {
	return slices.ContainsFunc(p.Requests(), func(r proxy.Request) bool { return r.Start.After(t) && judge.LeaderOnlyWrite(r) })
}
