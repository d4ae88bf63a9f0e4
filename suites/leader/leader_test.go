package leader

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/reference/refproc"
	"github.com/steadystate-dev/steadystate/suites/oracle"
	"github.com/steadystate-dev/steadystate/suites/subject"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// Lease timings of the reference subject: short, so failovers are quick.
const (
	leaseDuration = 3 * time.Second
	retryPeriod   = 500 * time.Millisecond
	leaseName     = "refctl-leader"
)

// ErrSlowFailover is the liveness property of leader election.
var ErrSlowFailover = errors.New("after the holder dies, another replica must hold the Lease within the lease duration plus two retry periods")

type election struct {
	ns      string
	subj    *refproc.Subject
	target  chaos.Target
	lease   *oracle.History
	proxies map[string]*proxy.Proxy
}

func start(ctx context.Context, ns string) *election {
	s, target := subject.Start(ctx, nil, "leader", 2, "--lease-namespace="+ns, "--work-namespace="+ns,
		"--lease-duration="+leaseDuration.String(), "--renew-deadline=2s", "--retry-period="+retryPeriod.String(), "--heartbeat=200ms")
	h := testenv.Record(ctx, dynamic.NewForConfigOrDie(testenv.Get().REST), coordinationv1.SchemeGroupVersion.WithResource("leases"), ns)
	e := &election{ns: ns, subj: s, target: target, lease: h, proxies: map[string]*proxy.Proxy{}}
	for i, r := range s.Replicas {
		e.proxies[r.Identity] = s.Proxy(i)
	}
	Eventually(e.holder).WithContext(ctx).WithTimeout(30 * time.Second).ShouldNot(BeEmpty())
	return e
}

func (e *election) holder() string {
	l, err := testenv.Get().Kube.CoordinationV1().Leases(e.ns).Get(context.Background(), leaseName, metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

func (e *election) replica(identity string) chaos.Replica {
	for _, r := range e.subj.Replicas {
		if r.Identity == identity {
			return r
		}
	}
	Fail("no replica " + identity)
	return chaos.Replica{}
}

func (e *election) other(identity string) string {
	for _, r := range e.subj.Replicas {
		if r.Identity != identity {
			return r.Identity
		}
	}
	return ""
}

func (e *election) oneWriter() oracle.Check {
	return oracle.Check{Stage: oracle.Safety, Name: "only the Lease holder writes", Run: func() error {
		return onlyHolderWrites(e.lease, e.ns+"/"+leaseName, e.proxies)
	}}
}

var _ = Describe("A leader-elected manager", Label("capability:leader-elected"), func() {
	var ns string
	BeforeEach(func(ctx SpecContext) { ns = testenv.NewNamespace(ctx, "leader") })

	It("makes no leader-only writes when a non-leader shuts down gracefully", Label("fault:process-terminate"), func(ctx SpecContext) {
		e := start(ctx, ns)
		follower := e.other(e.holder())
		// Only a follower that takes part in the election counts: its
		// proxy has seen it read the Lease.
		Eventually(func() bool { return e.proxies[follower].Answered(proxy.Match{Resource: "leases"}, 200) }).WithContext(ctx).WithTimeout(15*time.Second).Should(BeTrue(), follower+" should contend for the Lease")
		_, err := chaos.Inject(ctx, chaos.NewTimeline(), chaos.ProcessFault{Replica: follower, Action: chaos.Terminate}, e.target)
		testenv.ExpectValid(oracle.Validate(
			oracle.Check{Stage: oracle.Assumption, Name: "the follower was terminated", Run: func() error { return err }},
			e.oneWriter(),
		))
	})

	It("fails over within the lease bound after the holder is killed", Label("fault:leader-failover"), func(ctx SpecContext) {
		e := start(ctx, ns)
		inj, err := chaos.Inject(ctx, chaos.NewTimeline(), chaos.LeaderFailover{LeaseNamespace: ns, LeaseName: leaseName, Timeout: 30 * time.Second}, e.target)
		testenv.ExpectValid(oracle.Validate(
			oracle.Check{Stage: oracle.Assumption, Name: "the holder was killed", Run: func() error { return err }},
			oracle.Check{Stage: oracle.Liveness, Name: "another replica takes the Lease in time", Run: func() error {
				took, _ := time.ParseDuration(inj.Detail["failover"])
				before, _ := strconv.Atoi(inj.Detail["transitionsBefore"])
				after, _ := strconv.Atoi(inj.Detail["transitionsAfter"])
				bound := leaseDuration + 2*retryPeriod + time.Second
				switch {
				case took > bound:
					return fmt.Errorf("%w: took %s, bound %s", ErrSlowFailover, took, bound)
				case after != before+1:
					return fmt.Errorf("%w: leaseTransitions went %d -> %d, want one more", ErrSlowFailover, before, after)
				}
				AddReportEntry("failover time", took.String())
				return nil
			}},
			e.oneWriter(),
		))
	})

	It("stops writing when partitioned, before another replica takes over", Label("fault:partition"), func(ctx SpecContext) {
		e := start(ctx, ns)
		old := e.holder()
		successor := e.other(old)
		part, err := chaos.Begin(ctx, chaos.NewTimeline(), chaos.Partition(old, true, 0), e.target)
		Expect(err).NotTo(HaveOccurred())
		Eventually(e.holder).WithContext(ctx).WithTimeout(30*time.Second).Should(Equal(successor), "the successor should take the Lease")
		healed := time.Now()
		Expect(part.End(ctx)).To(Succeed())
		// The old leader either exits (correct) or writes again; wait for
		// one or the other, then judge the writes.
		oldProxy := e.proxies[old]
		Eventually(func() bool {
			return e.replica(old).Process.Exited() || wroteSince(oldProxy, healed)
		}).WithContext(ctx).WithTimeout(15 * time.Second).Should(BeTrue())
		testenv.ExpectValid(oracle.Validate(e.oneWriter()))
	})
})

func wroteSince(p *proxy.Proxy, t time.Time) bool {
	for _, r := range p.Requests() {
		if r.Start.After(t) && r.Code >= 200 && r.Code < 300 && r.Resource == "configmaps" && r.Verb != "get" && r.Verb != "list" && r.Verb != "watch" {
			return true
		}
	}
	return false
}
