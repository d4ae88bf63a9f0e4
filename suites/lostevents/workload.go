package lostevents

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL reads best unqualified.
	. "github.com/onsi/gomega"    //nolint:revive // as above.
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
	"github.com/steadystate-dev/steadystate/suites/oracle"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

var workloads = refv1.GroupVersion.WithResource("workloads")

// workload is a Workload under test and the history of it and its pods.
type workload struct {
	dyn     dynamic.Interface
	ns      string
	history *oracle.History
	pods    *oracle.History
}

func newWorkload(ctx context.Context, ns string, replicas int64) *workload {
	dyn := dynamic.NewForConfigOrDie(testenv.Get().REST)
	w := &workload{dyn: dyn, ns: ns}
	var stop func()
	var err error
	w.history, stop, err = oracle.Record(ctx, dyn, workloads, ns)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(stop)
	w.pods, stop, err = oracle.Record(ctx, dyn, corev1.SchemeGroupVersion.WithResource("pods"), ns)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(stop)
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": refv1.GroupVersion.String(), "kind": "Workload",
		"metadata": map[string]any{"name": "web", "namespace": ns},
		"spec": map[string]any{"replicas": replicas, "template": map[string]any{
			"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
			"spec":     map[string]any{"containers": []any{map[string]any{"name": "app", "image": "steadystate.invalid/none"}}},
		}},
	}}
	_, err = dyn.Resource(workloads).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	return w
}

// scale sets spec.replicas and returns when the change was accepted.
func (w *workload) scale(ctx context.Context, n int64) time.Time {
	patch := fmt.Sprintf(`{"spec":{"replicas":%d}}`, n)
	_, err := w.dyn.Resource(workloads).Namespace(w.ns).Patch(ctx, "web", "application/merge-patch+json", []byte(patch), metav1.PatchOptions{})
	Expect(err).NotTo(HaveOccurred())
	return time.Now()
}

// converged matches a state where status.replicas equals spec.replicas for
// the current generation.
func converged(ns string) oracle.Match {
	return func(s oracle.State) (bool, string) {
		obj := s[ns+"/web"]
		if obj == nil {
			return false, "the Workload does not exist"
		}
		spec, _, _ := unstructured.NestedInt64(obj.Object, "spec", "replicas")
		status, _, _ := unstructured.NestedInt64(obj.Object, "status", "replicas")
		observed, _, _ := unstructured.NestedInt64(obj.Object, "status", "observedGeneration")
		if status != spec || observed != obj.GetGeneration() {
			return false, fmt.Sprintf("status.replicas=%d (observed generation %d of %d), spec.replicas=%d", status, observed, obj.GetGeneration(), spec)
		}
		return true, ""
	}
}

// livePods lists the names of the pods that exist at the end of history.
func (w *workload) livePods() []string {
	var names []string
	for key, obj := range w.pods.StateAt(time.Now()) {
		if obj.GetDeletionTimestamp() == nil {
			names = append(names, key)
		}
	}
	return names
}
