package local

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// TestPodRemoverRemovesOnlyTheTerminatingPod replays what the zoo recorded
// (docs/zoo/triage.md, "Harness defects, fixed"): a StatefulSet's web-0 on a
// simulated node is deleted, its successor of the same name is created at
// once, and a remover that acts on the old terminating pod after that must
// leave the successor alone. KWOK's pod-delete stage deleted by name and
// removed the successor. The remover's handler is driven with the old
// object after the successor exists, so the order is fixed, not raced. The
// ordinary case comes first: a pod deleted with the default grace period
// is removed.
func TestPodRemoverRemovesOnlyTheTerminatingPod(t *testing.T) {
	b := requireBinaries(t)
	requireNodeBinaries(t, b)
	logDir := t.TempDir()
	c := startCluster(t, Options{Name: "pod-remover", BinDir: binDirOf(b), LogDir: logDir, Nodes: DefaultNodes})
	t.Cleanup(func() {
		if t.Failed() {
			logTails(t, logDir, Kwok, PodRemover)
		}
	})
	cfg, err := c.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	kube := kubernetes.NewForConfigOrDie(cfg)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	pods := kube.CoreV1().Pods("default")
	// A pod needs its namespace's default ServiceAccount, which the
	// controller manager makes a moment after the cluster is ready.
	if err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		_, err := kube.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	}); err != nil {
		t.Fatalf("the default ServiceAccount of namespace default: %v", err)
	}

	// The ordinary case: no kubelet and no KWOK stage deletes, so only the
	// remover can take the terminating pod away.
	if _, err := pods.Create(ctx, simulatedPod("plain", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := pods.Delete(ctx, "plain", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPodGone(ctx, t, kube, "plain")

	// The stale case. A finalizer holds the old web-0 while it terminates,
	// so its terminating state can be caught as the remover saw it: the
	// first event that carries the deletion timestamp.
	hold := "steadystate.dev/test-hold"
	old, err := pods.Create(ctx, simulatedPod("web-0", []string{hold}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := pods.Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "web-0").String(), ResourceVersion: old.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := pods.Delete(ctx, "web-0", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var terminating *corev1.Pod
	for terminating == nil {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatal("the watch of web-0 ended before its deletion was seen")
			}
			if p, isPod := ev.Object.(*corev1.Pod); isPod && ev.Type == watch.Modified && p.DeletionTimestamp != nil {
				terminating = p
			}
		case <-ctx.Done():
			t.Fatalf("no event of web-0 terminating: %v", ctx.Err())
		}
	}
	if _, err := pods.Patch(ctx, "web-0", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPodGone(ctx, t, kube, "web-0")
	successor, err := pods.Create(ctx, simulatedPod("web-0", nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	c.remover.remove(ctx, terminating)

	got, err := pods.Get(ctx, "web-0", metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		t.Fatalf("acting on the old web-0 (uid %s) removed its successor (uid %s)", terminating.UID, successor.UID)
	case err != nil:
		t.Fatal(err)
	case got.UID != successor.UID || got.DeletionTimestamp != nil:
		t.Fatalf("acting on the old web-0 (uid %s) touched its successor: uid %s, deletion timestamp %v; want uid %s, not terminating", terminating.UID, got.UID, got.DeletionTimestamp, successor.UID)
	}

	if err := c.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	data, err := os.ReadFile(logPath(logDir, PodRemover))
	if err != nil {
		t.Fatal(err)
	}
	log := string(data)
	for _, want := range []string{"removed pod default/plain", "removed pod default/web-0 uid=" + string(terminating.UID), "the name holds another pod", "stopped"} {
		if !strings.Contains(log, want) {
			t.Errorf("the pod remover's log lacks %q:\n%s", want, log)
		}
	}
}

// simulatedPod is a pod bound to the first simulated node.
func simulatedPod(name string, finalizers []string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Finalizers: finalizers},
		Spec: corev1.PodSpec{
			NodeName:   NodeName(0),
			Containers: []corev1.Container{{Name: "app", Image: "steadystate.invalid/none"}},
		},
	}
}

// waitPodGone waits until the pod of that name in default is gone.
func waitPodGone(ctx context.Context, t *testing.T, kube kubernetes.Interface, name string) {
	t.Helper()
	var last *corev1.Pod
	err := wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		p, err := kube.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		last = p
		return false, err
	})
	if err != nil {
		t.Fatalf("pod %s is not removed: %v; last seen %+v", name, err, last)
	}
}
