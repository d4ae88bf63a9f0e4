package chaos

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
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

// Ending is a Host that tells when its controller's run ends, so a
// caller waits for an exit instead of asking Exited on a clock.
type Ending interface {
	// Ended is closed once the run going on at the call has ended.
	Ended() <-chan struct{}
}

// Follower is a Host whose controller, once it has exited by itself, is
// started again in place by something other than the harness (a pod's
// kubelet restarts its container): the harness follows it back instead
// of restarting it.
type Follower interface {
	// Follow waits up to timeout until the controller runs again (and is
	// ready, where readiness is probed) and returns what it saw; a
	// controller that did not come back is an error naming the host and
	// its state.
	Follow(ctx context.Context, timeout time.Duration) (map[string]string, error)
	// Down reports whether the controller is known not to run now: gone,
	// or exited and not yet started again. Exited, by contrast, stays
	// true once it has exited, though it runs again.
	Down(ctx context.Context) bool
}

// ProcessHost is a replica run as a local process.
type ProcessHost struct{ P *proc.Proc }

var (
	_ Host      = ProcessHost{}
	_ Restarter = ProcessHost{}
	_ Ending    = ProcessHost{}
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

// Ended is closed once the process's current run has ended.
func (h ProcessHost) Ended() <-chan struct{} { return h.P.Done() }

// Log is the process's log file.
func (h ProcessHost) Log(context.Context) ([]byte, error) { return os.ReadFile(h.P.LogPath()) }

// PodHost is a replica run as a pod, its controller in container
// Container: a kill deletes the pod with grace 0, a terminate with the
// grace asked for; its Deployment replaces it under another name, so it
// cannot restart in place. A controller that exits by itself (a manager
// that lost its Lease) is restarted in place by the kubelet, the pod's
// restart policy being Always: Follow waits for it.
type PodHost struct {
	Kube                       kubernetes.Interface
	Namespace, Name, Container string
	// Seal, when set, seals the replica's proxy and copies its final log
	// before a kill: killed at once, the sidecar would take the end of the
	// replica's history with it. (A terminated pod's sidecar seals itself
	// once the controller has exited.)
	Seal func() error
	// Seen, when set, is the container's restart count already accounted
	// for: the count when the replica was handed over (a crash at start
	// is no exit of the run's), then after each Follow. Exited counts only
	// restarts beyond it, so one restart is not reported again by every
	// later schedule.
	Seen *atomic.Int32
}

var (
	_ Host     = PodHost{}
	_ Follower = PodHost{}
)

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

// Exited says the controller container has terminated or restarted, or the
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
		if c.Name == h.Container && (c.RestartCount > h.seen() || c.State.Terminated != nil) {
			return true
		}
	}
	return false
}

// seen is the restart count already accounted for (Seen), 0 unset.
func (h PodHost) seen() int32 {
	if h.Seen == nil {
		return 0
	}
	return h.Seen.Load()
}

// Log is the controller container's log: its previous run's first when
// the kubelet restarted it (a crash, a panic), as the kubelet keeps it,
// then the current run's.
// The kubelet keeps one previous run only: a panic two restarts back is
// not there to read.
func (h PodHost) Log(ctx context.Context) ([]byte, error) {
	pods := h.Kube.CoreV1().Pods(h.Namespace)
	restarts := func() (int32, error) {
		pod, err := pods.Get(ctx, h.Name, metav1.GetOptions{})
		if err != nil {
			return 0, err
		}
		if s := h.status(pod); s != nil {
			return s.RestartCount, nil
		}
		return 0, nil
	}
	// Read again if the container restarted meanwhile: the current log
	// read before a restart would be the previous one read after it.
	for {
		before, err := restarts()
		if err != nil {
			return nil, err
		}
		var previous []byte
		if before > 0 {
			if previous, err = pods.GetLogs(h.Name, &corev1.PodLogOptions{Container: h.Container, Previous: true}).DoRaw(ctx); err != nil {
				return nil, fmt.Errorf("the log of container %s's previous run in pod %s/%s: %w", h.Container, h.Namespace, h.Name, err)
			}
		}
		current, err := pods.GetLogs(h.Name, &corev1.PodLogOptions{Container: h.Container}).DoRaw(ctx)
		if err != nil {
			return nil, err
		}
		after, err := restarts()
		if err != nil {
			return nil, err
		}
		if after == before || ctx.Err() != nil {
			return append(previous, current...), nil
		}
	}
}

// Down says the pod is gone, or the controller container does not run (it
// exited and the kubelet has not started it again yet).
func (h PodHost) Down(ctx context.Context) bool {
	pod, err := h.Kube.CoreV1().Pods(h.Namespace).Get(ctx, h.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return true
	}
	if err != nil {
		return false
	}
	s := h.status(pod)
	return s != nil && s.State.Running == nil
}

// followPoll is how often Follow reads the pod.
const followPoll = 250 * time.Millisecond

// Follow waits up to timeout until the controller container runs again
// in the same pod, and is ready if it has a readiness probe. A pod that
// is gone or being deleted, or whose phase is final, is an error at once;
// a container still not running at the timeout (in CrashLoopBackOff,
// say) is an error with its state. Its detail is the container's restart
// count and how it last exited.
func (h PodHost) Follow(ctx context.Context, timeout time.Duration) (map[string]string, error) {
	pods := h.Kube.CoreV1().Pods(h.Namespace)
	var (
		pod    *corev1.Pod
		getErr error
	)
	err := wait.PollUntilContextTimeout(ctx, followPoll, timeout, true, func(ctx context.Context) (bool, error) {
		pod, getErr = pods.Get(ctx, h.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(getErr):
			return false, fmt.Errorf("pod %s/%s is gone: its container %s cannot be restarted in place", h.Namespace, h.Name, h.Container)
		case getErr != nil:
			return false, nil
		case pod.DeletionTimestamp != nil:
			return false, fmt.Errorf("pod %s/%s is being deleted: its container %s will not be restarted in place (%s)", h.Namespace, h.Name, h.Container, h.state(pod))
		case pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed:
			return false, fmt.Errorf("pod %s/%s has ended (%s): its container %s will not be restarted in place (%s)", h.Namespace, h.Name, pod.Status.Phase, h.Container, h.state(pod))
		}
		return h.running(pod), nil
	})
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return nil, fmt.Errorf("follow container %s of pod %s/%s: %w", h.Container, h.Namespace, h.Name, err)
	case wait.Interrupted(err):
		state := fmt.Sprintf("its pod not read: %v", getErr)
		if getErr == nil && pod != nil {
			state = h.state(pod)
		}
		return nil, fmt.Errorf("container %s of pod %s/%s did not run again within %s: %s", h.Container, h.Namespace, h.Name, timeout, state)
	default:
		return nil, err
	}
	detail := map[string]string{}
	if s := h.status(pod); s != nil {
		if h.Seen != nil {
			h.Seen.Store(s.RestartCount)
		}
		detail["restarts"] = strconv.Itoa(int(s.RestartCount))
		if t := s.LastTerminationState.Terminated; t != nil {
			detail["exitCode"] = strconv.Itoa(int(t.ExitCode))
			detail["reason"] = t.Reason
		}
	}
	return detail, nil
}

// status is the controller container's status in pod, nil before the
// kubelet reports one.
func (h PodHost) status(pod *corev1.Pod) *corev1.ContainerStatus {
	for i := range pod.Status.ContainerStatuses {
		if pod.Status.ContainerStatuses[i].Name == h.Container {
			return &pod.Status.ContainerStatuses[i]
		}
	}
	return nil
}

// running reports whether the controller container runs, and is ready
// if its spec has a readiness probe.
func (h PodHost) running(pod *corev1.Pod) bool {
	s := h.status(pod)
	if s == nil || s.State.Running == nil {
		return false
	}
	for _, c := range pod.Spec.Containers {
		if c.Name == h.Container && c.ReadinessProbe != nil {
			return s.Ready
		}
	}
	return true
}

// state says what the controller container is doing, for an error.
func (h PodHost) state(pod *corev1.Pod) string {
	s := h.status(pod)
	if s == nil {
		return fmt.Sprintf("no status for container %s (pod phase %s)", h.Container, pod.Status.Phase)
	}
	var now string
	switch st := s.State; {
	case st.Waiting != nil:
		now = "waiting: " + st.Waiting.Reason
		if st.Waiting.Message != "" {
			now += ": " + st.Waiting.Message
		}
	case st.Terminated != nil:
		now = fmt.Sprintf("terminated: exit code %d (%s)", st.Terminated.ExitCode, st.Terminated.Reason)
	case st.Running != nil && !s.Ready:
		now = "running, not ready"
	case st.Running != nil:
		now = "running"
	default:
		now = "no state"
	}
	now += fmt.Sprintf(", %d restart(s)", s.RestartCount)
	if t := s.LastTerminationState.Terminated; t != nil {
		now += fmt.Sprintf(", last exit code %d (%s)", t.ExitCode, t.Reason)
	}
	return now
}
