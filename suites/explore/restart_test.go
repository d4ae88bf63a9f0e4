package explore

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
