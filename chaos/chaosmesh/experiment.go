package chaosmesh

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/chaos-mesh/chaos-mesh/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/steadystate-dev/steadystate/chaos"
)

// GroupVersion is the Chaos Mesh API the adapter speaks.
var GroupVersion = schema.GroupVersion{Group: "chaos-mesh.org", Version: "v1alpha1"}

// experiment is what PodKill and NetworkPartition share: one Chaos Mesh
// object, created, watched for a condition, deleted.
type experiment struct {
	resource string // podchaos or networkchaos
	kind     string // PodChaos or NetworkChaos
	// Timeout bounds each wait on Chaos Mesh. Default 60s.
	timeout time.Duration

	created *unstructured.Unstructured
}

func (e *experiment) gvr() schema.GroupVersionResource { return GroupVersion.WithResource(e.resource) }

// available checks that the cluster serves the experiment's kind.
func (e *experiment) available(t chaos.Target) error {
	if t.Kube == nil || t.Dynamic == nil {
		return fmt.Errorf("no cluster client")
	}
	list, err := t.Kube.Discovery().ServerResourcesForGroupVersion(GroupVersion.String())
	if err != nil {
		return fmt.Errorf("the cluster does not serve %s: Chaos Mesh is not installed (%v)", GroupVersion, err)
	}
	for _, r := range list.APIResources {
		if r.Name == e.resource {
			return nil
		}
	}
	return fmt.Errorf("the cluster does not serve %s %s: Chaos Mesh is not installed", GroupVersion, e.kind)
}

// create makes the object and waits until Chaos Mesh reports AllInjected.
func (e *experiment) create(ctx context.Context, t chaos.Target, namespace string, obj runtime.Object) (chaos.Injection, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return chaos.Injection{}, err
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetAPIVersion(GroupVersion.String())
	u.SetKind(e.kind)
	u.SetGenerateName("steadystate-")
	inj := chaos.Injection{Start: time.Now()}
	created, err := t.Dynamic.Resource(e.gvr()).Namespace(namespace).Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		return inj, fmt.Errorf("create %s: %w", e.kind, err)
	}
	e.created = created
	inj.Target = namespace + "/" + created.GetName()
	if err := e.waitFor(ctx, t.Dynamic, v1alpha1.ConditionAllInjected); err != nil {
		return inj, err
	}
	return inj, nil
}

// waitFor polls the experiment until condition is True.
func (e *experiment) waitFor(ctx context.Context, dyn dynamic.Interface, condition v1alpha1.ChaosConditionType) error {
	client := dyn.Resource(e.gvr()).Namespace(e.created.GetNamespace())
	var last *unstructured.Unstructured
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, e.wait(), true, func(ctx context.Context) (bool, error) {
		obj, err := client.Get(ctx, e.created.GetName(), metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = obj
		return hasCondition(obj, condition), nil
	})
	if err == nil || ctx.Err() != nil {
		return err
	}
	why := "is its controller-manager running?"
	if failed := failures(last); failed != "" {
		why = "Chaos Mesh says: " + failed
	}
	return fmt.Errorf("%s %s/%s: Chaos Mesh did not report %s within %s; %s",
		e.kind, e.created.GetNamespace(), e.created.GetName(), condition, e.wait(), why)
}

// wait is the bound of each wait on Chaos Mesh.
func (e *experiment) wait() time.Duration {
	if e.timeout == 0 {
		return 60 * time.Second
	}
	return e.timeout
}

// status reads an experiment's status; false when it has none that parses.
func status(obj *unstructured.Unstructured) (v1alpha1.ChaosStatus, bool) {
	var s struct {
		Status v1alpha1.ChaosStatus `json:"status"`
	}
	if obj == nil || runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &s) != nil {
		return v1alpha1.ChaosStatus{}, false
	}
	return s.Status, true
}

// failures are the failed operations Chaos Mesh recorded on the
// experiment's targets ("victim: Apply: pod not running"), "" when none.
func failures(obj *unstructured.Unstructured) string {
	s, ok := status(obj)
	if !ok {
		return ""
	}
	var out []string
	for _, r := range s.Experiment.Records {
		if r == nil {
			continue
		}
		for _, ev := range r.Events {
			if ev.Type == v1alpha1.TypeFailed {
				out = append(out, fmt.Sprintf("%s: %s: %s", r.Id, ev.Operation, ev.Message))
				break
			}
		}
	}
	return strings.Join(slices.Compact(out), "; ")
}

func hasCondition(obj *unstructured.Unstructured, condition v1alpha1.ChaosConditionType) bool {
	s, ok := status(obj)
	if !ok {
		return false
	}
	for _, c := range s.Conditions {
		if c.Type == condition && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// remove deletes the experiment and waits until it is gone: Chaos Mesh
// keeps a finalizer until it has recovered the targets. When it has not
// within the wait, remove drops that finalizer itself so that no
// experiment is left behind, and says so in its error: the targets may
// still carry the fault. (Chaos Mesh's own force-clean annotation does not
// help there: it is read only once the records step stops retrying, which
// a target Chaos Mesh cannot reach never lets happen.)
func (e *experiment) remove(ctx context.Context, t chaos.Target) error {
	if e.created == nil {
		return nil
	}
	client := t.Dynamic.Resource(e.gvr()).Namespace(e.created.GetNamespace())
	name := e.created.GetName()
	if err := client.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete %s %s: %w", e.kind, name, err)
	}
	var last *unstructured.Unstructured
	gone := func(ctx context.Context) (bool, error) {
		obj, err := client.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		if err == nil {
			last = obj
		}
		return false, nil
	}
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, e.wait(), true, gone); err == nil {
		e.created = nil
		return nil
	} else if ctx.Err() != nil {
		return err
	}
	stuck := fmt.Errorf("%s %s was still there %s after deletion: Chaos Mesh had not recovered its targets (%s)",
		e.kind, name, e.wait(), phases(last))
	patch := []byte(`{"metadata":{"finalizers":null}}`)
	if _, err := client.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("%w; drop its finalizer: %v", stuck, err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, e.wait(), true, gone); err != nil {
		return fmt.Errorf("%w; still there %s after its finalizer was dropped", stuck, e.wait())
	}
	e.created = nil
	return fmt.Errorf("%w; its finalizer was dropped, the targets may still carry the fault", stuck)
}

// phases lists each target's record phase ("victims/web-0 Injected").
func phases(obj *unstructured.Unstructured) string {
	s, ok := status(obj)
	if !ok || len(s.Experiment.Records) == 0 {
		return "no records"
	}
	var out []string
	for _, r := range s.Experiment.Records {
		if r != nil {
			out = append(out, fmt.Sprintf("%s %s", r.Id, r.Phase))
		}
	}
	return strings.Join(out, ", ")
}
