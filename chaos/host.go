package chaos

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/steadystate-dev/steadystate/internal/proc"
)

// Host is where a replica's controller runs, as process faults act on it:
// a local process (ProcessHost) or a pod (PodHost). Each action returns
// what it did, for the injection's record.
type Host interface {
	// Where names the host: {"pid": ...} or {"pod": "ns/name"}.
	Where() map[string]string
	// Kill stops the controller at once: no shutdown code runs.
	Kill(ctx context.Context) (map[string]string, error)
	// Terminate asks the controller to stop, waits up to grace for its
	// graceful shutdown, then kills it.
	Terminate(ctx context.Context, grace time.Duration) (map[string]string, error)
	// Exited reports whether the controller has exited since it started.
	Exited(ctx context.Context) bool
	// Log is the controller's log so far.
	Log(ctx context.Context) ([]byte, error)
}

// Restarter is a Host that can start its controller again in place.
type Restarter interface {
	Restart(ctx context.Context, grace time.Duration) (map[string]string, error)
}

// ProcessHost is a replica run as a local process.
type ProcessHost struct{ P *proc.Proc }

var (
	_ Host      = ProcessHost{}
	_ Restarter = ProcessHost{}
)

// Where is the process's pid.
func (h ProcessHost) Where() map[string]string {
	return map[string]string{"pid": strconv.Itoa(h.P.PID())}
}

// Kill sends SIGKILL.
func (h ProcessHost) Kill(context.Context) (map[string]string, error) {
	h.P.Kill()
	return nil, nil
}

// Terminate sends SIGTERM, and SIGKILL after grace.
func (h ProcessHost) Terminate(_ context.Context, grace time.Duration) (map[string]string, error) {
	h.P.Stop(grace)
	return nil, nil
}

// Restart terminates the process and starts it again: the same replica
// under a new pid.
func (h ProcessHost) Restart(_ context.Context, grace time.Duration) (map[string]string, error) {
	err := h.P.Restart(grace)
	return map[string]string{"newPid": strconv.Itoa(h.P.PID())}, err
}

// Exited reports whether the process has exited.
func (h ProcessHost) Exited(context.Context) bool { return h.P.Exited() }

// Log is the process's log file.
func (h ProcessHost) Log(context.Context) ([]byte, error) { return os.ReadFile(h.P.LogPath()) }

// PodHost is a replica run as a pod, its controller in container
// Container: a kill deletes the pod with grace 0, a terminate with the
// grace asked for; its Deployment replaces it under another name, so it
// cannot restart in place.
type PodHost struct {
	Kube                       kubernetes.Interface
	Namespace, Name, Container string
	// Seal, when set, seals the replica's proxy and copies its final log
	// before a kill: killed at once, the sidecar would take the end of the
	// replica's history with it. (A terminated pod's sidecar seals itself
	// once the controller has exited.)
	Seal func() error
}

var _ Host = PodHost{}

// Where is the pod's namespace and name.
func (h PodHost) Where() map[string]string {
	return map[string]string{"pod": h.Namespace + "/" + h.Name}
}

// Kill seals the proxy, then deletes the pod with grace 0.
func (h PodHost) Kill(ctx context.Context) (map[string]string, error) {
	detail := map[string]string{}
	if h.Seal != nil {
		if err := h.Seal(); err != nil {
			return detail, err
		}
		detail["sealed"] = "true"
	}
	return detail, h.delete(ctx, 0)
}

// Terminate deletes the pod with grace.
func (h PodHost) Terminate(ctx context.Context, grace time.Duration) (map[string]string, error) {
	return nil, h.delete(ctx, grace)
}

// delete deletes the pod and waits until the API server no longer has it.
func (h PodHost) delete(ctx context.Context, grace time.Duration) error {
	seconds := int64(grace / time.Second)
	pods := h.Kube.CoreV1().Pods(h.Namespace)
	if err := pods.Delete(ctx, h.Name, metav1.DeleteOptions{GracePeriodSeconds: &seconds}); err != nil {
		return fmt.Errorf("delete pod %s/%s: %w", h.Namespace, h.Name, err)
	}
	bound := grace + 30*time.Second
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, bound, true, func(ctx context.Context) (bool, error) {
		_, err := pods.Get(ctx, h.Name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		return fmt.Errorf("pod %s/%s still exists %s after its deletion", h.Namespace, h.Name, bound)
	}
	return nil
}

// Exited: the controller container has terminated or restarted, or the
// pod is gone.
func (h PodHost) Exited(ctx context.Context) bool {
	pod, err := h.Kube.CoreV1().Pods(h.Namespace).Get(ctx, h.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return true
	}
	if err != nil {
		return false
	}
	for _, c := range pod.Status.ContainerStatuses {
		if c.Name == h.Container && (c.RestartCount > 0 || c.State.Terminated != nil) {
			return true
		}
	}
	return false
}

// Log is the controller container's log.
func (h PodHost) Log(ctx context.Context) ([]byte, error) {
	return h.Kube.CoreV1().Pods(h.Namespace).GetLogs(h.Name, &corev1.PodLogOptions{Container: h.Container}).DoRaw(ctx)
}
