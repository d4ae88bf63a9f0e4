package explore

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/steadystate-dev/steadystate/chaos"
)

// podReplica is replica r0-abc run as pod ns/r0-abc, its controller
// container in state after restarts restarts (the last exit code 1).
func podReplica(state corev1.ContainerState, restarts int32) chaos.Target {
	status := corev1.ContainerStatus{Name: "controller", State: state, RestartCount: restarts, Ready: state.Running != nil}
	if restarts > 0 {
		status.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "r0-abc", Namespace: "ns"},
		Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyAlways, Containers: []corev1.Container{{Name: "controller"}}},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{status}},
	}
	kube := fake.NewClientset(pod)
	host := chaos.PodHost{Kube: kube, Namespace: "ns", Name: "r0-abc", Container: "controller"}
	return chaos.Target{Kube: kube, Replicas: []chaos.Replica{{Identity: "r0-abc", Host: host}}}
}

var runningState = corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}

// A controller in a pod that exited by itself (a manager that lost its
// Lease) and that its kubelet ran again in place is followed, and listed
// as restarted; one that never ran again is an error naming its pod and
// its container's state, not a finding; one that never exited is left
// alone.
func TestRestartStoppedFollowsAPodRestartedInPlace(t *testing.T) {
	restarted, err := restartStopped(t.Context(), podReplica(runningState, 1))
	if err != nil {
		t.Fatal(err)
	}
	if want := "r0-abc (in place by its kubelet: 1 restart(s), last exit code 1)"; len(restarted) != 1 || restarted[0] != want {
		t.Errorf("restarted %q, want [%q]", restarted, want)
	}

	if restarted, err := restartStopped(t.Context(), podReplica(runningState, 0)); err != nil || len(restarted) != 0 {
		t.Errorf("a controller that never exited: restarted %q, %v", restarted, err)
	}

	old := followTimeout
	followTimeout = 300 * time.Millisecond
	defer func() { followTimeout = old }()
	backOff := corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}
	_, err = restartStopped(t.Context(), podReplica(backOff, 4))
	for _, want := range []string{"replica r0-abc exited and did not come back", "pod ns/r0-abc", "waiting: CrashLoopBackOff, 4 restart(s)"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("a container in back-off: %v, want it to say %q", err, want)
		}
	}
}

// A change step's wait for the state to settle goes on while a replica's
// kubelet restarts it in place: it comes back by itself, unlike a local
// process a fault stopped.
func TestChangeWaitsThroughAnInPlaceRestart(t *testing.T) {
	target := podReplica(corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}, 1)
	running, stopped, cancel := whileRunning(t.Context(), target)
	defer cancel()
	if stopped() || running.Err() != nil {
		t.Error("the wait ended for a controller its kubelet restarts in place")
	}
}

// exitingHost is a local replica that has exited by itself until it is
// restarted, and fails to restart when failRestart is set.
type exitingHost struct {
	mu          sync.Mutex
	exited      bool
	restarts    int
	failRestart bool
}

func (h *exitingHost) Where() map[string]string { return map[string]string{"pid": "1"} }
func (h *exitingHost) Kill(context.Context) (map[string]string, error) {
	return nil, nil
}
func (h *exitingHost) Terminate(context.Context, time.Duration) (map[string]string, error) {
	return nil, nil
}
func (h *exitingHost) Exited(context.Context) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.exited
}
func (h *exitingHost) Log(context.Context) ([]byte, error) { return nil, nil }
func (h *exitingHost) Restart(context.Context, time.Duration) (map[string]string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failRestart {
		return nil, errors.New("no binary")
	}
	h.restarts++
	h.exited = false
	return nil, nil
}

// A local replica that exits by itself while a schedule is judged is
// started again after the back-off, as its kubelet would, and named; one
// that cannot be is named once and left; one that runs is left alone.
func TestSuperviseExitsStartsAgainAReplicaThatExited(t *testing.T) {
	defer func(b time.Duration) { exitBackoff = b }(exitBackoff)
	exitBackoff = time.Millisecond
	exited, broken, running := &exitingHost{exited: true}, &exitingHost{exited: true, failRestart: true}, &exitingHost{}
	target := chaos.Target{Replicas: []chaos.Replica{{Identity: "a", Host: exited}, {Identity: "b", Host: broken}, {Identity: "c", Host: running}}}
	ctx, cancel := context.WithCancel(t.Context())
	var mu sync.Mutex
	var said []string
	done := make(chan struct{})
	go superviseExits(ctx, target, done, func(s string) { mu.Lock(); said = append(said, s); mu.Unlock() })
	err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		return len(said) == 2, nil
	})
	cancel()
	<-done
	if err != nil {
		t.Fatalf("said %q", said)
	}
	if exited.restarts != 1 || exited.Exited(t.Context()) || running.restarts != 0 {
		t.Errorf("restarts: exited %d, running %d", exited.restarts, running.restarts)
	}
	joined := strings.Join(said, "\n")
	for _, want := range []string{"a exited by itself; started again 1ms later, as its kubelet would", "b exited by itself and could not be started again: no binary"} {
		if !strings.Contains(joined, want) {
			t.Errorf("said %q, want %q", said, want)
		}
	}
}

// endingHost is an exitingHost that says when its run ends
// (chaos.Ending): superviseExits waits on that, with no clock.
type endingHost struct {
	exitingHost
	ended chan struct{}
}

func (h *endingHost) Ended() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ended
}

// exit ends the current run.
func (h *endingHost) exit() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.exited = true
	close(h.ended)
}

func (h *endingHost) Restart(ctx context.Context, grace time.Duration) (map[string]string, error) {
	out, err := h.exitingHost.Restart(ctx, grace)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ended = make(chan struct{})
	return out, err
}

// A replica whose host says when it exits is started again once it does,
// though it ran when supervision began: the wait is on the host's word
// (an Ending host adds no poll, so a wait that missed it would never end).
func TestSuperviseExitsWaitsOnTheHostsWordOfAnExit(t *testing.T) {
	defer func(b time.Duration) { exitBackoff = b }(exitBackoff)
	exitBackoff = time.Millisecond
	h := &endingHost{ended: make(chan struct{})}
	target := chaos.Target{Replicas: []chaos.Replica{{Identity: "a", Host: h}}}
	ctx, cancel := context.WithCancel(t.Context())
	said := make(chan string, 1)
	done := make(chan struct{})
	go superviseExits(ctx, target, done, func(s string) { said <- s })
	h.exit()
	select {
	case s := <-said:
		if want := "a exited by itself; started again 1ms later, as its kubelet would"; s != want {
			t.Errorf("said %q, want %q", s, want)
		}
	case <-time.After(time.Minute):
		t.Error("no restart a minute after the replica exited")
	}
	cancel()
	<-done
	if h.restarts != 1 {
		t.Errorf("restarts = %d, want 1", h.restarts)
	}
}
