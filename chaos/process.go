package chaos

import (
	"context"
	"fmt"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// ProcessAction is what a ProcessFault does to a replica's process.
type ProcessAction string

// The process actions.
const (
	// Kill sends SIGKILL: no shutdown code runs, a held Lease is not
	// released.
	Kill ProcessAction = "kill"
	// Terminate sends SIGTERM and waits up to Grace before SIGKILL: the
	// graceful shutdown path.
	Terminate ProcessAction = "terminate"
	// Restart terminates and starts the process again.
	Restart ProcessAction = "restart"
)

// ProcessFault acts on the process of a replica that runs locally. On a
// cluster the same faults are pod deletions: grace 0 for a kill, a graceful
// delete (Grace) for a terminate; a pod cannot be restarted in place.
type ProcessFault struct {
	Replica string
	Action  ProcessAction
	// Grace bounds Terminate and Restart before SIGKILL. Default 10s.
	Grace time.Duration
}

// Name is process-kill, process-terminate or process-restart.
func (f ProcessFault) Name() string { return "process-" + string(f.Action) }

// Available needs the replica to be a local process.
func (f ProcessFault) Available(t Target) error {
	switch f.Action {
	case Kill, Terminate, Restart:
	default:
		return fmt.Errorf("unknown process action %q: use kill, terminate or restart", f.Action)
	}
	r, ok := t.replica(f.Replica)
	if !ok {
		return fmt.Errorf("the subject has no replica %q", f.Replica)
	}
	switch {
	case r.Process == nil && r.Pod == nil:
		return fmt.Errorf("replica %q is neither a local process nor a pod", f.Replica)
	case r.Process == nil && f.Action == Restart:
		return fmt.Errorf("replica %q is a pod: it cannot be restarted in place (its Deployment replaces it under a new name); use kill or terminate", f.Replica)
	case r.Process == nil && t.Kube == nil:
		return fmt.Errorf("replica %q is a pod and the target has no cluster client", f.Replica)
	}
	return nil
}

// Inject acts and returns once the process has exited (and, for Restart,
// started again).
func (f ProcessFault) Inject(ctx context.Context, t Target) (Injection, error) {
	r, _ := t.replica(f.Replica)
	grace := f.Grace
	if grace == 0 {
		grace = 10 * time.Second
	}
	if r.Process == nil {
		return f.deletePod(ctx, t, r, grace)
	}
	p := r.Process
	inj := Injection{Target: f.Replica, Start: time.Now(), Detail: map[string]string{"pid": strconv.Itoa(p.PID())}}
	var err error
	switch f.Action {
	case Kill:
		p.Kill()
	case Terminate:
		p.Stop(grace)
	case Restart:
		err = p.Restart(grace)
		inj.Detail["newPid"] = strconv.Itoa(p.PID())
	}
	inj.End = time.Now()
	return inj, err
}

// Recover has nothing to undo: a killed replica stays down until the
// harness restarts it.
func (ProcessFault) Recover(context.Context, Target) error { return nil }

// sealer is a replica's proxy that can be sealed and its final log copied
// (a proxy.Mirror of a pod's sidecar).
type sealer interface{ Seal() error }

// deletePod is the fault on a pod: deleted with grace 0 (kill) or grace
// (terminate), and waited for until the API server no longer has it. A
// kill first seals the replica's proxy and copies its final log: killed at
// once, the sidecar would take the end of the replica's history with it.
// (A terminated pod's sidecar seals itself once the controller has exited.)
func (f ProcessFault) deletePod(ctx context.Context, t Target, r Replica, grace time.Duration) (Injection, error) {
	pod := *r.Pod
	inj := Injection{Target: f.Replica, Start: time.Now(), Detail: map[string]string{"pod": pod.Namespace + "/" + pod.Name}}
	seconds := int64(grace / time.Second)
	if f.Action == Kill {
		seconds = 0
		if s, ok := r.Proxy.(sealer); ok {
			if err := s.Seal(); err != nil {
				return inj, fmt.Errorf("kill %s: %w", f.Replica, err)
			}
			inj.Detail["sealed"] = "true"
		}
	}
	pods := t.Kube.CoreV1().Pods(pod.Namespace)
	if err := pods.Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &seconds}); err != nil {
		return inj, fmt.Errorf("delete pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, grace+30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	inj.End = time.Now()
	if err != nil {
		return inj, fmt.Errorf("pod %s/%s still exists %s after its deletion", pod.Namespace, pod.Name, grace+30*time.Second)
	}
	return inj, nil
}
