package leader_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/chaos/runner"
	"github.com/steadystate-dev/steadystate/reference/leader"
	"github.com/steadystate-dev/steadystate/reference/reftest"
)

var env reftest.Env

func TestMain(m *testing.M) { reftest.Main(m, "leader-test", &env) }

// start runs two leader replicas with short timings in a new namespace:
// leader-only work stops within a retry period plus two renew deadlines
// of the last renewal, inside the lease duration.
func start(t *testing.T, e *reftest.Env, bug string) (*runner.Subject, string) {
	ns := e.Cluster.Namespace(t, "leader")
	s := e.Start(t, "leader", 2, "--bug="+bug, "--lease-namespace="+ns, "--work-namespace="+ns,
		"--lease-duration=3s", "--renew-deadline=1s", "--retry-period=500ms", "--heartbeat=200ms")
	reftest.Eventually(t, 30*time.Second, "a leader", func() bool { return holder(e, ns) != "" })
	return s, ns
}

func holder(e *reftest.Env, ns string) string {
	l, err := e.Cluster.Kube.CoordinationV1().Leases(ns).Get(context.Background(), "refctl-leader", metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

func markers(t *testing.T, e *reftest.Env, ns, identity string) int {
	var list corev1.ConfigMapList
	if err := e.Client.List(t.Context(), &list, client.InNamespace(ns), client.MatchingLabels{leader.LabelMarker: identity}); err != nil {
		t.Fatal(err)
	}
	return len(list.Items)
}

func other(s *runner.Subject, identity string) (int, string) {
	for i, r := range s.Replicas {
		if r.Identity != identity {
			return i, r.Identity
		}
	}
	return -1, ""
}

func TestNonLeaderShutdown(t *testing.T) {
	e := env.Require(t)
	reftest.EachMode(t, []string{"", leader.BugStartOnShutdown}, func(t *testing.T, bug string) {
		s, ns := start(t, e, bug)
		lead := holder(e, ns)
		reftest.Eventually(t, 10*time.Second, "the leader's marker", func() bool { return markers(t, e, ns, lead) == 1 })
		fi, follower := other(s, lead)
		// Only a follower that takes part in the election counts:
		// its proxy has seen it read the Lease.
		reftest.Eventually(t, 15*time.Second, follower+" to contend for the Lease", func() bool { return s.Proxy(fi).Answered(proxy.Match{Resource: "leases"}, 200) })
		if _, err := chaos.Inject(t.Context(), chaos.NewTimeline(), chaos.ProcessFault{Replica: follower, Action: chaos.Terminate}, e.Target(s)); err != nil {
			t.Fatal(err)
		}
		got := markers(t, e, ns, follower)
		if bug == "" && got != 0 {
			t.Errorf("the non-leader %s wrote %d leader markers while shutting down", follower, got)
		}
		if bug != "" && got != 1 {
			t.Errorf("with %s the non-leader %s should write one marker on shutdown, wrote %d", bug, follower, got)
		}
		if h := holder(e, ns); h != lead {
			t.Errorf("the Lease moved from %s to %s when a follower stopped", lead, h)
		}
	})
}

// TestPartitionedLeader blackholes the leader until the other replica takes
// the Lease, then heals the partition. The correct leader has exited by
// then; with ignore-lost-lease it writes again: two writers.
func TestPartitionedLeader(t *testing.T) {
	e := env.Require(t)
	reftest.EachMode(t, []string{"", leader.BugIgnoreLostLease}, func(t *testing.T, bug string) {
		s, ns := start(t, e, bug)
		old := holder(e, ns)
		oldIdx, successor := other(s, old)
		oldIdx = 1 - oldIdx
		part, err := chaos.Begin(t.Context(), chaos.NewTimeline(), chaos.Partition(old, true, 0), e.Target(s))
		if err != nil {
			t.Fatal(err)
		}
		reftest.Eventually(t, 30*time.Second, successor+" to take the Lease", func() bool { return holder(e, ns) == successor })
		healed := time.Now()
		if err := part.End(t.Context()); err != nil {
			t.Fatal(err)
		}

		writesAfter := func() int {
			n := 0
			for _, r := range s.Proxy(oldIdx).Requests() {
				if r.Resource == "configmaps" && (r.Verb == "create" || r.Verb == "update") && r.Code > 0 && r.Code < 300 && r.Start.After(healed) {
					n++
				}
			}
			return n
		}
		if bug == "" {
			reftest.Eventually(t, 30*time.Second, "the old leader to exit", func() bool { return s.Proc(oldIdx).Exited() })
			if n := writesAfter(); n != 0 {
				t.Errorf("the old leader %s wrote %d times after losing the Lease", old, n)
			}
			return
		}
		reftest.Eventually(t, 30*time.Second, "the old leader to write again", func() bool { return writesAfter() > 0 })
		if s.Proc(oldIdx).Exited() {
			t.Error("with ignore-lost-lease the old leader should keep running")
		}
	})
}
