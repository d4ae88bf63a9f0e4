package capi_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/steadystate-dev/steadystate/chaos/runner"
	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
	"github.com/steadystate-dev/steadystate/reference/capi"
	"github.com/steadystate-dev/steadystate/reference/mover"
	"github.com/steadystate-dev/steadystate/reference/reftest"
)

var env reftest.Env

func TestMain(m *testing.M) { reftest.Main(m, "capi-test", &env) }

const hold = "test.steadystate.dev/hold"

func get(c client.Client, ns, name string) (*refv1.Cluster, error) {
	var obj refv1.Cluster
	err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &obj)
	return &obj, err
}

func create(t *testing.T, c client.Client, ns, name string, paused bool, finalizers ...string) {
	t.Helper()
	obj := &refv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Finalizers: finalizers}, Spec: refv1.ClusterSpec{Paused: paused, Endpoint: "https://" + name}}
	if err := c.Create(t.Context(), obj); err != nil {
		t.Fatal(err)
	}
}

func waitFinalized(t *testing.T, c client.Client, ns, name string) {
	reftest.Eventually(t, 15*time.Second, name+" to get the controller's finalizer", func() bool {
		obj, err := get(c, ns, name)
		return err == nil && controllerutil.ContainsFinalizer(obj, capi.Finalizer)
	})
}

func cleanups(t *testing.T, c client.Client, ns, name string) []corev1.ConfigMap {
	var list corev1.ConfigMapList
	if err := c.List(t.Context(), &list, client.InNamespace(ns), client.MatchingLabels{capi.LabelCleanupOf: name}); err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// seenAt waits until the controller has reconciled the object at its
// current resource version, so an absence afterwards is a real absence.
func seenAt(t *testing.T, s *runner.Subject, c client.Client, ns, name, msg string) *refv1.Cluster {
	t.Helper()
	var obj *refv1.Cluster
	reftest.Eventually(t, 15*time.Second, "the controller to reconcile "+name+" ("+msg+")", func() bool {
		var err error
		obj, err = get(c, ns, name)
		return err == nil && s.LogHasLine(0, msg, `"name":"`+name+`"`, `"resourceVersion":"`+obj.ResourceVersion+`"`)
	})
	return obj
}

func TestMoveDeletesTheSourceOnlyInTheRightOrder(t *testing.T) {
	e := env.Require(t)
	target, targetClient := reftest.SecondCluster(t, "capi-target")
	reftest.EachMode(t, []string{"", mover.BugStripThenDelete}, func(t *testing.T, bug string) {
		ns := e.Cluster.Namespace(t, "move")
		if _, err := target.Kube.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		src := e.Start(t, "cluster", 1, "--leader-elect=false")
		e.StartOn(t, target, "cluster", 1, "--leader-elect=false")
		names := []string{"alpha", "beta"}
		for _, n := range names {
			create(t, e.Client, ns, n, false)
			waitFinalized(t, e.Client, ns, n)
		}
		out, err := exec.CommandContext(t.Context(), e.Refctl, "move", "--from-kubeconfig="+e.Cluster.Kubeconfig(),
			"--to-kubeconfig="+target.Kubeconfig(), "--namespace="+ns, "--step-delay=1s", "--bug="+bug).CombinedOutput()
		if err != nil {
			t.Fatalf("refctl move: %v\n%s", err, out)
		}
		for _, n := range names {
			reftest.Eventually(t, 15*time.Second, n+" to run on the target", func() bool {
				obj, err := get(targetClient, ns, n)
				return err == nil && !obj.Spec.Paused && controllerutil.ContainsFinalizer(obj, capi.Finalizer) && obj.Spec.Endpoint == "https://"+n
			})
		}
		for _, n := range names {
			if bug == "" {
				// P1: every source object is gone within 30s.
				reftest.Eventually(t, 30*time.Second, n+" to be gone from the source", func() bool {
					_, err := get(e.Client, ns, n)
					return apierrors.IsNotFound(err)
				})
				continue
			}
			obj := seenAt(t, src, e.Client, ns, n, "paused, skipping")
			if obj.DeletionTimestamp == nil || !obj.Spec.Paused || !controllerutil.ContainsFinalizer(obj, capi.Finalizer) {
				t.Errorf("%s on the source: deleting=%v paused=%v finalizers=%v; want the stuck zombie", n, obj.DeletionTimestamp != nil, obj.Spec.Paused, obj.Finalizers)
			}
			// Let the namespace go: release the zombie by hand.
			if err := e.Client.Patch(t.Context(), obj, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":[]}}`))); client.IgnoreNotFound(err) != nil {
				t.Errorf("release %s: %v", n, err)
			}
		}
	})
}

func TestFinalizerWhileDeleting(t *testing.T) {
	e := env.Require(t)
	reftest.EachMode(t, []string{"", capi.BugFinalizerWhileDeleting}, func(t *testing.T, bug string) {
		ns := e.Cluster.Namespace(t, "finalizer")
		s := e.Start(t, "cluster", 1, "--leader-elect=false", "--bug="+bug)
		create(t, e.Client, ns, "held", false, hold)
		waitFinalized(t, e.Client, ns, "held")
		obj, _ := get(e.Client, ns, "held")
		if err := e.Client.Delete(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
		reftest.Eventually(t, 15*time.Second, "cleanup and the controller's finalizer released", func() bool {
			obj, err := get(e.Client, ns, "held")
			return err == nil && !controllerutil.ContainsFinalizer(obj, capi.Finalizer) && len(cleanups(t, e.Client, ns, "held")) == 1
		})
		const forbidden = "no new finalizers can be added if the object is being deleted"
		if bug != "" {
			reftest.Eventually(t, 15*time.Second, "the 422 from re-adding the finalizer", func() bool {
				return s.LogHasLine(0, forbidden) && got422(s)
			})
		} else {
			seenAt(t, s, e.Client, ns, "held", "reconciling")
			if got422(s) || s.LogHasLine(0, forbidden) {
				t.Error("the correct controller tried to add a finalizer to a deleting object")
			}
		}
		obj, _ = get(e.Client, ns, "held")
		if err := e.Client.Patch(t.Context(), obj, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":[]}}`))); client.IgnoreNotFound(err) != nil {
			t.Errorf("release held: %v", err)
		}
	})
}

func got422(s *runner.Subject) bool {
	for _, r := range s.Proxy(0).Requests() {
		if r.Resource == "clusters" && r.Code == 422 {
			return true
		}
	}
	return false
}

func TestCleanupWhilePaused(t *testing.T) {
	e := env.Require(t)
	reftest.EachMode(t, []string{"", capi.BugCleanupWhilePaused}, func(t *testing.T, bug string) {
		ns := e.Cluster.Namespace(t, "paused")
		s := e.Start(t, "cluster", 1, "--leader-elect=false", "--bug="+bug)
		create(t, e.Client, ns, "frozen", true)
		waitFinalized(t, e.Client, ns, "frozen")
		obj, _ := get(e.Client, ns, "frozen")
		if err := e.Client.Delete(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
		if bug != "" {
			// P4 broken: external cleanup for a paused object.
			reftest.Eventually(t, 15*time.Second, "the cleanup record", func() bool { return len(cleanups(t, e.Client, ns, "frozen")) == 1 })
			if rec := cleanups(t, e.Client, ns, "frozen")[0]; rec.Data["paused"] != "true" {
				t.Errorf("cleanup record %v, want it made while paused", rec.Data)
			}
			return
		}
		obj = seenAt(t, s, e.Client, ns, "frozen", "paused, skipping")
		if n := len(cleanups(t, e.Client, ns, "frozen")); n != 0 || obj.DeletionTimestamp == nil {
			t.Fatalf("paused and deleting: %d cleanup records (want 0), deleting=%v", n, obj.DeletionTimestamp != nil)
		}
		// The controller logs before it writes the condition.
		reftest.Eventually(t, 10*time.Second, "the Paused condition", func() bool {
			obj, err := get(e.Client, ns, "frozen")
			return err == nil && meta.IsStatusConditionTrue(obj.Status.Conditions, refv1.TypePaused)
		})
		obj, _ = get(e.Client, ns, "frozen")
		if err := e.Client.Patch(t.Context(), obj, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"paused":false}}`))); err != nil {
			t.Fatal(err)
		}
		reftest.Eventually(t, 15*time.Second, "cleanup after unpausing, then the object gone", func() bool {
			_, err := get(e.Client, ns, "frozen")
			recs := cleanups(t, e.Client, ns, "frozen")
			return apierrors.IsNotFound(err) && len(recs) == 1 && recs[0].Data["paused"] == "false"
		})
	})
}
