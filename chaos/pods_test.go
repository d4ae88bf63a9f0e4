package chaos

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/steadystate-dev/steadystate/internal/victim"
)

// TestPodDeletionWhileTheWatchIsStalled deletes pods (grace 0) while the
// victim's pod watch is stalled: the pods are gone from the API server but
// the informer still holds them until the stall ends.
func TestPodDeletionWhileTheWatchIsStalled(t *testing.T) {
	c := cluster(t)
	ns := c.Namespace(t, "pods")
	for i := range 4 {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%d", i), Labels: map[string]string{"app": "web"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "steadystate.invalid/none"}}},
		}
		if _, err := c.Kube.CoreV1().Pods(ns).Create(t.Context(), pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	target, p := proxiedTarget(t, c)
	inf := startInformer(t, p.RESTConfig(), ns, victim.Pods)
	if inf.Len() != 4 {
		t.Fatalf("informer holds %d pods, want 4", inf.Len())
	}

	tl := NewTimeline()
	stall, err := Begin(t.Context(), tl, Stall("pods", 0), target)
	if err != nil {
		t.Fatal(err)
	}
	inj, err := Inject(t.Context(), tl, PodDeletion{Namespace: ns, Selector: "app=web", Fraction: 0.5}, target)
	if err != nil {
		t.Fatal(err)
	}
	deleted := strings.Split(inj.Detail["deleted"], ",")
	if len(deleted) != 2 {
		t.Fatalf("fraction 0.5 of 4 pods deleted %v", deleted)
	}
	live, err := c.Kube.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(live.Items) != 2 {
		t.Errorf("grace 0 should remove the pods at once; %d left", len(live.Items))
	}
	eventually(t, 10*time.Second, "the stall to hold the deletions", func() bool { return p.Held() >= 2 })
	if inf.Len() != 4 {
		t.Errorf("during the stall the informer should still hold 4 pods, holds %d", inf.Len())
	}
	if err := stall.End(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, name := range deleted {
		eventually(t, 10*time.Second, "the informer to see "+name+" deleted", func() bool { return inf.Saw("DELETE " + name) })
	}
	if got := tl.Injections(); len(got) != 2 || got[0].Fault != "watch-stall" || got[1].Fault != "pod-deletion" {
		t.Errorf("timeline = %+v", got)
	}
}

// TestProcessFaultsOnPods: on a cluster a kill deletes the replica's pod
// with grace 0 and a terminate with the grace asked for; a restart is
// refused before anything happens.
func TestProcessFaultsOnPods(t *testing.T) {
	for _, tc := range []struct {
		action ProcessAction
		grace  int64
	}{{Kill, 0}, {Terminate, 7}} {
		kube := fake.NewClientset(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "leader-abc", Namespace: "ns"}})
		var asked *int64
		kube.PrependReactor("delete", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
			asked = a.(k8stesting.DeleteAction).GetDeleteOptions().GracePeriodSeconds
			return false, nil, nil
		})
		target := Target{Kube: kube, Replicas: []Replica{{Identity: "leader-abc", Host: PodHost{Kube: kube, Namespace: "ns", Name: "leader-abc", Container: "controller"}}}}
		inj, err := Inject(t.Context(), nil, ProcessFault{Replica: "leader-abc", Action: tc.action, Grace: 7 * time.Second}, target)
		if err != nil {
			t.Fatalf("%s: %v", tc.action, err)
		}
		if asked == nil || *asked != tc.grace || inj.Detail["pod"] != "ns/leader-abc" {
			t.Fatalf("%s: grace %v, injection %+v", tc.action, asked, inj)
		}
		if _, err := kube.CoreV1().Pods("ns").Get(t.Context(), "leader-abc", metav1.GetOptions{}); err == nil {
			t.Fatalf("%s: the pod is still there", tc.action)
		}
	}
	kube := fake.NewClientset()
	target := Target{Kube: kube, Replicas: []Replica{{Identity: "x", Host: PodHost{Kube: kube, Namespace: "ns", Name: "x", Container: "controller"}}}}
	if _, err := Inject(t.Context(), nil, ProcessFault{Replica: "x", Action: Restart}, target); err == nil || !strings.Contains(err.Error(), "cannot be restarted in place") {
		t.Fatalf("restart on a pod: %v", err)
	}
}
