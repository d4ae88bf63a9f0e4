package chaos

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
)

// LeaderFailover kills (or, with Graceful, terminates) exactly the replica
// that holds the Lease. The injection is that stop and nothing more: it
// then watches the Lease for up to Timeout and records in Detail what it
// saw (the new holder, the failover time, the Lease's transitions before
// and after), but a Lease nobody takes is no failure of the injection.
// Whether and when the subject failed over is a property of the subject
// (leader/failover-in-time), judged from the Lease's recorded history.
type LeaderFailover struct {
	LeaseNamespace, LeaseName string
	Graceful                  bool
	// Timeout bounds the watch for a new holder. Default 60s.
	Timeout time.Duration
}

// Name is leader-failover.
func (f LeaderFailover) Name() string { return "leader-failover" }

// Available needs a Lease name and replicas that are local processes or
// pods.
func (f LeaderFailover) Available(t Target) error {
	if f.LeaseNamespace == "" || f.LeaseName == "" {
		return errors.New("leader failover needs the Lease's namespace and name")
	}
	for _, r := range t.Replicas {
		if r.Host != nil {
			return nil
		}
	}
	return errors.New("no replica of the subject is a local process or a pod")
}

// Inject reads the holder and stops it; its End is when the stop
// returned. It then watches for a new holder (Detail "newHolder",
// "failover", "transitionsAfter"); when none comes within Timeout,
// Detail "failover" says so and the injection still succeeded.
func (f LeaderFailover) Inject(ctx context.Context, t Target) (Injection, error) {
	leases := t.Kube.CoordinationV1().Leases(f.LeaseNamespace)
	lease, err := leases.Get(ctx, f.LeaseName, metav1.GetOptions{})
	if err != nil {
		return Injection{}, fmt.Errorf("read Lease %s/%s: %w", f.LeaseNamespace, f.LeaseName, err)
	}
	old := holder(lease)
	r, ok := t.Holding(old)
	if !ok || r.Host == nil {
		return Injection{}, fmt.Errorf("the Lease %s/%s is held by %q, which is no replica of the subject (by name or by its own Lease writes)", f.LeaseNamespace, f.LeaseName, old)
	}
	action := Kill
	if f.Graceful {
		action = Terminate
	}
	inj, err := ProcessFault{Replica: r.Identity, Action: action}.Inject(ctx, t)
	if err != nil {
		return inj, err
	}
	inj.Detail["oldHolder"] = old
	inj.Detail["oldReplica"] = r.Identity
	inj.Detail["transitionsBefore"] = strconv.Itoa(int(ptr.Deref(lease.Spec.LeaseTransitions, 0)))
	timeout := f.Timeout
	if timeout == 0 {
		timeout = 60 * time.Second
	}
	_ = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		l, err := leases.Get(ctx, f.LeaseName, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		if h := holder(l); h != "" && h != old {
			inj.Detail["newHolder"] = h
			inj.Detail["failover"] = time.Since(inj.Start).String()
			inj.Detail["transitionsAfter"] = strconv.Itoa(int(ptr.Deref(l.Spec.LeaseTransitions, 0)))
			return true, nil
		}
		return false, nil
	})
	if inj.Detail["newHolder"] == "" {
		inj.Detail["failover"] = fmt.Sprintf("no new holder seen within %s", timeout)
	}
	return inj, nil
}

// Recover has nothing to undo: the stopped replica stays down.
func (LeaderFailover) Recover(context.Context, Target) error { return nil }

func holder(l *coordinationv1.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}
