package leader

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/subjectfile"
	"github.com/steadystate-dev/steadystate/suites/subject"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// Election is the subject's replicas electing in the spec's namespace,
// and the recorded history of their Lease: the leader specs drive it, and
// so does exploration of a leader-elected manager.
type Election struct {
	*subjectfile.LeaderElected
	leaseNS, leaseName string
	Target             chaos.Target
	lease              *oracle.History
	proxies            map[string]proxy.Controller
	// spec is the spec the election runs for, whose evidence it records.
	spec *testenv.Spec
}

// Start runs the subject's managers (the spec is skipped when the subject
// is not leader-elected) and waits for a holder.
func Start(ctx context.Context, spec *testenv.Spec, ns string) *Election {
	s := subject.LeaderElected()
	e := &Election{LeaderElected: s.Election(), proxies: map[string]proxy.Controller{}, spec: spec}
	var err error
	e.leaseNS, e.leaseName, err = subject.Lease(e.LeaderElected, ns)
	Expect(err).NotTo(HaveOccurred())
	e.lease = e.spec.RecordAs(ctx, judge.HistoryLease, dynamic.NewForConfigOrDie(testenv.Get().REST), coordinationv1.SchemeGroupVersion.WithResource("leases"), e.leaseNS, "")
	judge.FactLease.Set(e.spec, e.Key())
	judge.FactLeaseDuration.Set(e.spec, e.LeaseDuration.Duration)
	judge.FactRetryPeriod.Set(e.spec, e.RetryPeriod.Duration)
	if len(e.LeaderOnly) > 0 {
		judge.FactLeaderOnly.Set(e.spec, judge.Names(e.LeaderOnly))
	}
	e.Target = s.StartManagers(ctx, spec, ns)
	for _, r := range e.Target.Replicas {
		e.proxies[r.Identity] = r.Proxy
	}
	Eventually(e.Holder).WithContext(ctx).WithTimeout(30*time.Second).ShouldNot(BeEmpty(),
		"a replica should take Lease %s/%s, through its own proxy", e.leaseNS, e.leaseName)
	// The specs judge from the recorded history, which learns of the
	// holder through its own watch, after the API server answered the GET
	// above: a fault injected before then found no Lease in it (a
	// self-test run's "the Lease was not recorded when the failover bound
	// started", its ADDED recorded 0.2 ms after the kill).
	Eventually(func() string { return judge.LeaseHolder(e.lease.StateAt(time.Now())[e.Key()]) }).WithContext(ctx).WithTimeout(10*time.Second).ShouldNot(BeEmpty(),
		"the recorded history should show Lease %s/%s's holder", e.leaseNS, e.leaseName)
	return e
}

// Holder is the replica holding the Lease, "" while nobody does. The
// holder identity is the controller's own choice; the replica is the one
// whose Lease writes were answered with it (chaos.Target.Holding).
func (e *Election) Holder() string {
	l, err := testenv.Get().Kube.CoordinationV1().Leases(e.leaseNS).Get(context.Background(), e.leaseName, metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	r, _ := e.Target.Holding(*l.Spec.HolderIdentity)
	return r.Identity
}

// Key is the Lease's key in the recorded history.
func (e *Election) Key() string { return e.leaseNS + "/" + e.leaseName }

func (e *Election) replica(identity string) chaos.Replica {
	for _, r := range e.Target.Replicas {
		if r.Identity == identity {
			return r
		}
	}
	Fail("no replica " + identity)
	return chaos.Replica{}
}

// Other is a replica other than identity.
func (e *Election) Other(identity string) string {
	for _, r := range e.Target.Replicas {
		if r.Identity != identity {
			return r.Identity
		}
	}
	return ""
}

// Lease is the Lease's namespace and name.
func (e *Election) Lease() (namespace, name string) { return e.leaseNS, e.leaseName }
