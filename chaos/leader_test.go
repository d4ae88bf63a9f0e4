package chaos

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadystate-dev/steadystate/internal/proc"
)

// startLeaderReplicas runs n client-go leader-election replicas (this test
// binary re-executed) competing for one Lease in ns.
func startLeaderReplicas(t *testing.T, ns string, n int) Target {
	t.Helper()
	c := cluster(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	target := Target{Kube: c.Kube}
	for i := range n {
		id := fmt.Sprintf("replica-%d", i)
		p, err := proc.Start(proc.Spec{
			Name: id, Path: self, LogPath: filepath.Join(t.TempDir(), id+".log"),
			Env: []string{helperEnv + "=leader", "KUBECONFIG=" + c.Kubeconfig(), "IDENTITY=" + id, "LEASE_NAMESPACE=" + ns, "LEASE_NAME=victim"},
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Kill)
		target.Replicas = append(target.Replicas, Replica{Identity: id, Process: p})
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
		if exited := r.Process.Exited(); exited != (r.Identity == old) {
			t.Errorf("%s exited=%v; only the holder %s should be killed", r.Identity, exited, old)
		}
	}
	// A killed holder does not release the Lease: the others must wait
	// for it to expire (3s here), so the failover cannot be instant.
	if failover, _ := time.ParseDuration(d["failover"]); failover < time.Second {
		t.Errorf("failover after a kill took %s, faster than the lease could expire", failover)
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
	if !r.Process.Exited() {
		t.Fatal("the terminated holder is still running")
	}

	inj, err = Inject(t.Context(), NewTimeline(), ProcessFault{Replica: old, Action: Restart, Grace: time.Second}, target)
	if err != nil {
		t.Fatal(err)
	}
	if inj.Detail["newPid"] == inj.Detail["pid"] || r.Process.Exited() {
		t.Errorf("restart: %v, exited=%v", inj.Detail, r.Process.Exited())
	}
	if _, err := Inject(t.Context(), NewTimeline(), ProcessFault{Replica: old, Action: Kill}, target); err != nil || !r.Process.Exited() {
		t.Errorf("kill: %v, exited=%v", err, r.Process.Exited())
	}
}
