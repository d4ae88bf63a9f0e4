package subject

import (
	"fmt"
	. "github.com/onsi/ginkgo/v2"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/steadystate-dev/steadystate/subjectfile"
)

// Workload reads and writes a scalable workload through its binding.
type Workload struct {
	file *subjectfile.File // its ScalableWorkload is set
}

func (w *Workload) binding() *subjectfile.ScalableWorkload {
	return w.file.Capabilities.ScalableWorkload
}

// GVR is the workload's resource.
func (w *Workload) GVR() schema.GroupVersionResource {
	gv, _ := schema.ParseGroupVersion(w.binding().Template["apiVersion"].(string))
	return gv.WithResource(w.binding().Resource)
}

// Kind is the workload's kind.
func (w *Workload) Kind() string { return w.binding().Template["kind"].(string) }

// ExpectationTimeout is how long the controller may take to notice a lost
// event on its own.
func (w *Workload) ExpectationTimeout() time.Duration { return w.binding().ExpectationTimeout.Duration }

// New is the template with name, namespace and replicas set.
func (w *Workload) New(ns, name string, replicas int64) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(w.binding().Template)}
	obj.SetName(name)
	obj.SetNamespace(ns)
	if err := unstructured.SetNestedField(obj.Object, replicas, strings.Split(w.binding().ReplicasPath, ".")...); err != nil {
		Fail(fmt.Sprintf("the subject file's scalableWorkload.template: replicasPath %s: %v", w.binding().ReplicasPath, err))
	}
	return obj
}

// ReplicasPath is the dotted path of the desired replicas.
func (w *Workload) ReplicasPath() string { return w.binding().ReplicasPath }

// StatusReplicasPath is the dotted path of the observed replicas.
func (w *Workload) StatusReplicasPath() string { return w.binding().StatusReplicasPath }

// ObservedGenerationPath is the dotted path of the generation the status
// describes, "" when the binding has none.
func (w *Workload) ObservedGenerationPath() string { return w.binding().ObservedGenerationPath }

// ReplicasPatch is a merge patch that sets the desired replicas.
func (w *Workload) ReplicasPatch(n int64) map[string]any {
	patch := map[string]any{}
	// Every step of the path is a map made here: no error.
	_ = unstructured.SetNestedField(patch, n, strings.Split(w.binding().ReplicasPath, ".")...)
	return patch
}

// Replicas reads desired and observed replicas from a live object, and
// whether the status describes the current generation. An error means a
// binding does not resolve: it names the subject file's field.
func (w *Workload) Replicas(obj *unstructured.Unstructured) (spec, status int64, current bool, err error) {
	b := w.binding()
	const at = "capabilities.scalableWorkload."
	if spec, err = w.file.Int(obj, at+"replicasPath", b.ReplicasPath); err != nil {
		return 0, 0, false, err
	}
	if status, err = w.file.Int(obj, at+"statusReplicasPath", b.StatusReplicasPath); err != nil {
		return 0, 0, false, err
	}
	current = true
	if b.ObservedGenerationPath != "" {
		observed, err := w.file.Int(obj, at+"observedGenerationPath", b.ObservedGenerationPath)
		if err != nil {
			return 0, 0, false, err
		}
		current = observed == obj.GetGeneration()
	}
	return spec, status, current, nil
}

// ReplaceWithin is how long the controller may take to replace deleted
// pods (the binding's replaceWithin; its default when the binding was
// not read from a file).
func (w *Workload) ReplaceWithin() time.Duration {
	if d := w.binding().ReplaceWithin.Duration; d > 0 {
		return d
	}
	return subjectfile.DefaultReplaceWithin
}
