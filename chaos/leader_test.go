package chaos

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/internal/proc"
)

// startLeaderReplicas runs n client-go leader-election replicas (this test
// binary re-executed) competing for one Lease in ns.
func startLeaderReplicas(t *testing.T, ns string, n int) Target {
	return startElection(t, ns, n, false)
}

// startElection runs n replicas; with ownIdentity each runs behind its own
// fault proxy and elects under an identity it makes up (host_UUID, as
// controller-runtime managers do), not under its replica name.
func startElection(t *testing.T, ns string, n int, ownIdentity bool) Target {
	t.Helper()
	c := cluster(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	target := Target{Kube: c.Kube}
	for i := range n {
		id := fmt.Sprintf("replica-%d", i)
		r := Replica{Identity: id}
		kubeconfig, identity := c.Kubeconfig(), id
		if ownIdentity {
			p, err := proxy.Start(proxy.Options{Upstream: c.REST, Replica: id})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p.Close() })
			kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
			if err := p.WriteKubeconfig(kubeconfig); err != nil {
				t.Fatal(err)
			}
			r.Proxy, identity = p, fmt.Sprintf("host_%d-%d", os.Getpid(), time.Now().UnixNano())
		}
		p, err := proc.Start(proc.Spec{
			Name: id, Path: self, LogPath: filepath.Join(t.TempDir(), id+".log"),
			Env: []string{helperEnv + "=leader", "KUBECONFIG=" + kubeconfig, "IDENTITY=" + identity, "LEASE_NAMESPACE=" + ns, "LEASE_NAME=victim"},
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Kill)
		r.Host = ProcessHost{p}
		target.Replicas = append(target.Replicas, r)
	}
	eventually(t, 30*time.Second, "a replica to hold the Lease", func() bool { return leaseHolder(t, target, ns) != "" })
	return target
}

func leaseHolder(t *testing.T, target Target, ns string) string {
	l, err := target.Kube.CoordinationV1().Leases(ns).Get(t.Context(), "victim", metav1.GetOptions{})
	if err != nil {
		return ""
	}
	return holder(l)
}

func TestLeaderFailoverKillsExactlyTheHolder(t *testing.T) {
	ns := cluster(t).Namespace(t, "leader")
	target := startLeaderReplicas(t, ns, 3)
	old := leaseHolder(t, target, ns)

	inj, err := Inject(t.Context(), NewTimeline(), LeaderFailover{LeaseNamespace: ns, LeaseName: "victim"}, target)
	if err != nil {
		t.Fatal(err)
	}
	d := inj.Detail
	if d["oldHolder"] != old || d["newHolder"] == "" || d["newHolder"] == old {
		t.Errorf("failover detail = %v, want %s replaced", d, old)
	}
	before, _ := strconv.Atoi(d["transitionsBefore"])
	after, _ := strconv.Atoi(d["transitionsAfter"])
	if after != before+1 {
		t.Errorf("leaseTransitions went %d -> %d, want exactly one more", before, after)
	}
	for _, r := range target.Replicas {
		if exited := r.Host.Exited(t.Context()); exited != (r.Identity == old) {
			t.Errorf("%s exited=%v; only the holder %s should be killed", r.Identity, exited, old)
		}
	}
	// A killed holder does not release the Lease: the others must wait
	// for it to expire (3s here), so the failover cannot be instant.
	if failover, _ := time.ParseDuration(d["failover"]); failover < time.Second {
		t.Errorf("failover after a kill took %s, faster than the lease could expire", failover)
	}
}

// TestFailoverFindsAHolderByItsOwnLeaseWrites: replicas that choose their
// own identity are still told apart: the holder is the replica whose
// proxy saw its Lease writes answered with that identity, and only it is
// killed.
func TestFailoverFindsAHolderByItsOwnLeaseWrites(t *testing.T) {
	ns := cluster(t).Namespace(t, "ownid")
	target := startElection(t, ns, 2, true)
	var old Replica
	eventually(t, 10*time.Second, "the holder to be known by its Lease writes", func() bool {
		var ok bool
		old, ok = target.Holding(leaseHolder(t, target, ns))
		return ok
	})
	inj, err := Inject(t.Context(), NewTimeline(), LeaderFailover{LeaseNamespace: ns, LeaseName: "victim"}, target)
	if err != nil {
		t.Fatal(err)
	}
	if inj.Detail["oldReplica"] != old.Identity || !strings.HasPrefix(inj.Detail["oldHolder"], "host_") {
		t.Errorf("failover detail = %v, want holder host_… on replica %s", inj.Detail, old.Identity)
	}
	for _, r := range target.Replicas {
		if exited := r.Host.Exited(t.Context()); exited != (r.Identity == old.Identity) {
			t.Errorf("%s exited=%v; only the holder %s should be killed", r.Identity, exited, old.Identity)
		}
	}
}

func TestGracefulFailoverAndRestart(t *testing.T) {
	ns := cluster(t).Namespace(t, "graceful")
	target := startLeaderReplicas(t, ns, 2)
	old := leaseHolder(t, target, ns)
	inj, err := Inject(t.Context(), NewTimeline(), LeaderFailover{LeaseNamespace: ns, LeaseName: "victim", Graceful: true}, target)
	if err != nil {
		t.Fatal(err)
	}
	if inj.Detail["newHolder"] == old {
		t.Fatalf("the Lease stayed with %s", old)
	}
	r, _ := target.replica(old)
	if !r.Host.Exited(t.Context()) {
		t.Fatal("the terminated holder is still running")
	}

	inj, err = Inject(t.Context(), NewTimeline(), ProcessFault{Replica: old, Action: Restart, Grace: time.Second}, target)
	if err != nil {
		t.Fatal(err)
	}
	if inj.Detail["newPid"] == inj.Detail["pid"] || r.Host.Exited(t.Context()) {
		t.Errorf("restart: %v, exited=%v", inj.Detail, r.Host.Exited(t.Context()))
	}
	if _, err := Inject(t.Context(), NewTimeline(), ProcessFault{Replica: old, Action: Kill}, target); err != nil || !r.Host.Exited(t.Context()) {
		t.Errorf("kill: %v, exited=%v", err, r.Host.Exited(t.Context()))
	}
}

// TestFailoverWithoutSuccessorIsNoInjectionError: the injection is the
// kill. A Lease that nobody takes afterwards (a subject that never fails
// over) is the subject's failure, judged by leader/failover-in-time from
// the Lease's history; the injection itself succeeded, and its Detail
// says no new holder was seen.
func TestFailoverWithoutSuccessorIsNoInjectionError(t *testing.T) {
	kube := fake.NewClientset(
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "leader-0", Namespace: "ns"}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "leader-1", Namespace: "ns"}},
		&coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "victim", Namespace: "ns"}, Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("leader-0"), LeaseTransitions: ptr.To[int32](2)}},
	)
	target := Target{Kube: kube}
	for _, name := range []string{"leader-0", "leader-1"} {
		target.Replicas = append(target.Replicas, Replica{Identity: name, Host: PodHost{Kube: kube, Namespace: "ns", Name: name, Container: "controller"}})
	}
	tl := NewTimeline()
	inj, err := Inject(t.Context(), tl, LeaderFailover{LeaseNamespace: "ns", LeaseName: "victim", Timeout: 300 * time.Millisecond}, target)
	if err != nil {
		t.Fatalf("a Lease nobody takes failed the injection: %v", err)
	}
	if got := tl.Injections(); len(got) != 1 || got[0].Error != "" {
		t.Fatalf("timeline = %+v, want one injection without an error", got)
	}
	d := inj.Detail
	if d["oldHolder"] != "leader-0" || d["transitionsBefore"] != "2" || d["newHolder"] != "" || !strings.Contains(d["failover"], "no new holder seen within 300ms") {
		t.Errorf("detail = %v, want leader-0 killed and no new holder", d)
	}
	if inj.End.Sub(inj.Start) > 250*time.Millisecond {
		t.Errorf("the injection lasted %s: it is the kill, not the watch after it", inj.End.Sub(inj.Start))
	}
	if _, err := kube.CoreV1().Pods("ns").Get(t.Context(), "leader-0", metav1.GetOptions{}); err == nil {
		t.Error("the holder's pod is still there")
	}
	if _, err := kube.CoreV1().Pods("ns").Get(t.Context(), "leader-1", metav1.GetOptions{}); err != nil {
		t.Errorf("the follower's pod: %v", err)
	}
}
