package chaos

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
)

// controllerPod is pod ns/x whose container "controller" is in state,
// after restarts restarts, the last one having exited with code 1; probed
// gives the container a readiness probe.
func controllerPod(state corev1.ContainerState, restarts int32, ready, probed bool) *corev1.Pod {
	c := corev1.Container{Name: "controller", Image: "controller"}
	if probed {
		c.ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/readyz"}}}
	}
	status := corev1.ContainerStatus{Name: "controller", State: state, RestartCount: restarts, Ready: ready}
	if restarts > 0 {
		status.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "ns"},
		Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyAlways, Containers: []corev1.Container{c}},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{status}},
	}
}

var (
	exited   = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}}
	backOff  = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 20s restarting failed container=controller"}}
	starting = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}
	running  = corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
)

// readsInTurn answers each get of the pod with the next of pods, the
// last one from then on.
func readsInTurn(kube *fake.Clientset, pods ...*corev1.Pod) {
	n := 0
	kube.PrependReactor("get", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		p := pods[min(n, len(pods)-1)]
		n++
		return true, p.DeepCopy(), nil
	})
}

// TestPodHostFollowsAnInPlaceRestart: a controller container that exited
// is followed until the kubelet runs it again, and until it is ready
// when it has a readiness probe; the detail says how it exited.
func TestPodHostFollowsAnInPlaceRestart(t *testing.T) {
	for _, probed := range []bool{false, true} {
		kube := fake.NewClientset()
		readsInTurn(kube,
			controllerPod(exited, 0, false, probed),
			controllerPod(starting, 1, false, probed),
			controllerPod(running, 1, false, probed),
			controllerPod(running, 1, true, probed),
		)
		h := PodHost{Kube: kube, Namespace: "ns", Name: "x", Container: "controller"}
		if !h.Exited(t.Context()) {
			t.Fatalf("probed %v: a terminated container has not exited", probed)
		}
		detail, err := h.Follow(t.Context(), time.Minute)
		if err != nil {
			t.Fatalf("probed %v: %v", probed, err)
		}
		if detail["restarts"] != "1" || detail["exitCode"] != "1" || detail["reason"] != "Error" {
			t.Errorf("probed %v: detail %v", probed, detail)
		}
		// Gets: Exited's (exited), then Follow's: starting, running, and
		// ready when probed.
		gets := 0
		for _, a := range kube.Actions() {
			if a.GetVerb() == "get" {
				gets++
			}
		}
		want := 1 + 2
		if probed {
			want++
		}
		if gets != want {
			t.Errorf("probed %v: followed over %d reads, want %d (running%s)", probed, gets, want, map[bool]string{true: " and ready"}[probed])
		}
	}
}

// TestPodHostFollowFails: a container that stays in CrashLoopBackOff
// past the timeout, or a pod that is gone, is an error naming the pod and
// the container's state.
func TestPodHostFollowFails(t *testing.T) {
	kube := fake.NewClientset(controllerPod(backOff, 3, false, false))
	h := PodHost{Kube: kube, Namespace: "ns", Name: "x", Container: "controller"}
	_, err := h.Follow(t.Context(), 600*time.Millisecond)
	for _, want := range []string{"pod ns/x", "did not run again within 600ms", "CrashLoopBackOff", "3 restart(s)", "last exit code 1 (Error)"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("a container in back-off: %v, want it to say %q", err, want)
		}
	}
	gone := PodHost{Kube: fake.NewClientset(), Namespace: "ns", Name: "x", Container: "controller"}
	if _, err := gone.Follow(t.Context(), time.Hour); err == nil || !strings.Contains(err.Error(), "pod ns/x is gone") {
		t.Errorf("a pod that is gone: %v", err)
	}
	deleting := controllerPod(exited, 0, false, false)
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	deleting.Finalizers = []string{"test"}
	h = PodHost{Kube: fake.NewClientset(deleting), Namespace: "ns", Name: "x", Container: "controller"}
	if _, err := h.Follow(t.Context(), time.Hour); err == nil || !strings.Contains(err.Error(), "pod ns/x is being deleted") || !strings.Contains(err.Error(), "terminated: exit code 1") {
		t.Errorf("a pod being deleted: %v", err)
	}
}

// TestStoppedForAPodRestartedInPlace: a forced relist waits for the
// re-watch of a replica its kubelet restarted before the cut and that
// runs again (Exited stays true for it); one whose container is down, or
// whose pod is gone, has stopped.
func TestStoppedForAPodRestartedInPlace(t *testing.T) {
	p := &proxy.Proxy{}
	for _, tc := range []struct {
		name string
		pods []runtime.Object
		want bool
	}{
		{"running again", []runtime.Object{controllerPod(running, 1, true, false)}, false},
		{"exited", []runtime.Object{controllerPod(exited, 1, false, false)}, true},
		{"in back-off", []runtime.Object{controllerPod(backOff, 2, false, false)}, true},
		{"gone", nil, true},
	} {
		kube := fake.NewClientset(tc.pods...)
		h := PodHost{Kube: kube, Namespace: "ns", Name: "x", Container: "controller"}
		target := Target{Replicas: []Replica{{Identity: "x", Proxy: p, Host: h}}}
		if got := stopped(t.Context(), target, p); got != tc.want {
			t.Errorf("%s: stopped = %v, want %v", tc.name, got, tc.want)
		}
		if !h.Exited(t.Context()) {
			t.Errorf("%s: a container that restarted has exited since it started", tc.name)
		}
	}
}

// A restart already accounted for (before the run, or followed by an
// earlier schedule) is no exit: Exited counts restarts beyond Seen, and
// Follow moves Seen to the count it saw.
func TestPodHostCountsOnlyRestartsNotYetSeen(t *testing.T) {
	seen := new(atomic.Int32)
	seen.Store(1)
	kube := fake.NewClientset(controllerPod(running, 1, true, false))
	h := PodHost{Kube: kube, Namespace: "ns", Name: "x", Container: "controller", Seen: seen}
	if h.Exited(t.Context()) {
		t.Fatal("a restart from before the run counted as an exit")
	}
	kube = fake.NewClientset()
	readsInTurn(kube, controllerPod(running, 2, true, false))
	h.Kube = kube
	if !h.Exited(t.Context()) {
		t.Fatal("a new restart was not counted")
	}
	if _, err := h.Follow(t.Context(), time.Second); err != nil {
		t.Fatal(err)
	}
	if seen.Load() != 2 || h.Exited(t.Context()) {
		t.Errorf("after Follow: seen %d, exited %v; want 2 and no exit", seen.Load(), h.Exited(t.Context()))
	}
}

// TestPodHostLogKeepsThePreviousRun: a container the kubelet restarted
// (its panic ended the run before) is read with its previous run's log;
// one never restarted is read once.
func TestPodHostLogKeepsThePreviousRun(t *testing.T) {
	for _, restarts := range []int32{0, 2} {
		kube := fake.NewClientset(controllerPod(running, restarts, true, false))
		h := PodHost{Kube: kube, Namespace: "ns", Name: "x", Container: "controller"}
		out, err := h.Log(t.Context())
		if err != nil {
			t.Fatalf("restarts %d: %v", restarts, err)
		}
		// The fake answers every log read with the same text.
		want := 1
		if restarts > 0 {
			want = 2
		}
		if n := strings.Count(string(out), "fake logs"); n != want {
			t.Errorf("restarts %d: %d log reads in %q, want %d", restarts, n, out, want)
		}
	}
}
