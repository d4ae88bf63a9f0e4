package chaos

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// LeaderFailover kills (or, with Graceful, terminates) exactly the replica
// that holds the Lease, and measures how long until another replica holds
// it. Detail records the old and new holder, the failover time and the
// Lease's transitions before and after.
type LeaderFailover struct {
	LeaseNamespace, LeaseName string
	Graceful                  bool
	// Timeout bounds the wait for a new holder. Default 60s.
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

// Inject reads the holder, stops it and waits for a new holder.
func (f LeaderFailover) Inject(ctx context.Context, t Target) (Injection, error) {
	leases := t.Kube.CoordinationV1().Leases(f.LeaseNamespace)
	lease, err := leases.Get(ctx, f.LeaseName, metav1.GetOptions{})
	if err != nil {
		return Injection{}, fmt.Errorf("read Lease %s/%s: %w", f.LeaseNamespace, f.LeaseName, err)
	}
	old := holder(lease)
	r, ok := t.Holding(old)
	if !ok || r.Host == nil {
		return Injection{}, fmt.Errorf("Lease %s/%s is held by %q, which is no replica of the subject (by name or by its own Lease writes)", f.LeaseNamespace, f.LeaseName, old)
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
	deadline := time.Now().Add(timeout)
	for {
		lease, err = leases.Get(ctx, f.LeaseName, metav1.GetOptions{})
		if err == nil {
			if h := holder(lease); h != "" && h != old {
				inj.End = time.Now()
				inj.Detail["newHolder"] = h
				inj.Detail["failover"] = inj.End.Sub(inj.Start).String()
				inj.Detail["transitionsAfter"] = strconv.Itoa(int(ptr.Deref(lease.Spec.LeaseTransitions, 0)))
				return inj, nil
			}
		}
		if time.Now().After(deadline) {
			return inj, fmt.Errorf("no replica took Lease %s/%s within %s after %s was stopped", f.LeaseNamespace, f.LeaseName, timeout, old)
		}
		select {
		case <-ctx.Done():
			return inj, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Recover has nothing to undo: the stopped replica stays down.
func (LeaderFailover) Recover(context.Context, Target) error { return nil }

func holder(l *coordinationv1.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}
