package lostevents

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/gomega" //nolint:revive // Gomega reads best unqualified.
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
	"github.com/steadystate-dev/steadystate/suites/oracle"
	"github.com/steadystate-dev/steadystate/suites/subject"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// kindOf is the workload resource under test: the reference Workload, or
// a ReplicaSet with SUBJECT=replicaset.
func kindOf() (schema.GroupVersionResource, string, string) {
	if subject.Kind() == "replicaset" {
		return appsv1.SchemeGroupVersion.WithResource("replicasets"), appsv1.SchemeGroupVersion.String(), "ReplicaSet"
	}
	return refv1.GroupVersion.WithResource("workloads"), refv1.GroupVersion.String(), "Workload"
}

// workload is a Workload under test and the history of it and its pods.
type workload struct {
	gvr     schema.GroupVersionResource
	dyn     dynamic.Interface
	ns      string
	history *oracle.History
	pods    *oracle.History
}

func newWorkload(ctx context.Context, ns string, replicas int64) *workload {
	dyn := dynamic.NewForConfigOrDie(testenv.Get().REST)
	gvr, apiVersion, kind := kindOf()
	w := &workload{gvr: gvr, dyn: dyn, ns: ns}
	w.history = testenv.Record(ctx, dyn, gvr, ns)
	w.pods = testenv.Record(ctx, dyn, corev1.SchemeGroupVersion.WithResource("pods"), ns)
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"name": "web", "namespace": ns},
		"spec": map[string]any{"replicas": replicas, "template": map[string]any{
			"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
			"spec":     map[string]any{"containers": []any{map[string]any{"name": "app", "image": "steadystate.invalid/none"}}},
		}},
	}}
	if kind == "ReplicaSet" {
		unstructured.SetNestedStringMap(obj.Object, map[string]string{"app": "web"}, "spec", "selector", "matchLabels")
	}
	_, err := dyn.Resource(gvr).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	return w
}

// scale sets spec.replicas and returns when the change was accepted.
func (w *workload) scale(ctx context.Context, n int64) time.Time {
	patch := fmt.Sprintf(`{"spec":{"replicas":%d}}`, n)
	_, err := w.dyn.Resource(w.gvr).Namespace(w.ns).Patch(ctx, "web", "application/merge-patch+json", []byte(patch), metav1.PatchOptions{})
	Expect(err).NotTo(HaveOccurred())
	return time.Now()
}

// converged matches a state where status.replicas equals spec.replicas for
// the current generation.
func converged(ns string) oracle.Match {
	return func(s oracle.State) (bool, string) {
		obj := s[ns+"/web"]
		if obj == nil {
			return false, "the workload does not exist"
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
