package foreground

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

var composites = refv1.GroupVersion.WithResource("composites")

var (
	gcOnce sync.Once
	gcErr  error
)

// gcReady waits, once per process, until kube-controller-manager's garbage
// collector handles the composite kinds. It learns new CRDs on a 30s
// discovery resync; until it knows Managed, a foreground deletion of a
// Composite finds no dependents and completes at once, leaving the Managed
// behind. So a probe Composite with a blocking Managed is deleted in the
// foreground, in a namespace of its own that no subject watches, and the
// collector is ready once the Managed is gone.
func gcReady(ctx context.Context, kube kubernetes.Interface, dyn dynamic.Interface) error {
	gcOnce.Do(func() {
		ns, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "gc-probe-",
			Labels: map[string]string{testenv.NamespaceLabel: "true"}}}, metav1.CreateOptions{})
		if err != nil {
			gcErr = fmt.Errorf("garbage collector probe: %w", err)
			return
		}
		defer kube.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
		gcErr = probeGC(ctx, dyn, ns.Name)
	})
	return gcErr
}

func probeGC(ctx context.Context, dyn dynamic.Interface, ns string) error {
	obj := func(kind, name string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": refv1.GroupVersion.String(), "kind": kind,
			"metadata": map[string]any{"name": name, "namespace": ns},
			"spec":     map[string]any{"externalName": "gc-probe"},
		}}
	}
	owner, err := dyn.Resource(composites).Namespace(ns).Create(ctx, obj("Composite", "gc-probe"), metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("garbage collector probe: %w", err)
	}
	dep := obj("Managed", "gc-probe")
	dep.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: refv1.GroupVersion.String(), Kind: "Composite", Name: owner.GetName(), UID: owner.GetUID(),
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}})
	if _, err := dyn.Resource(manageds).Namespace(ns).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("garbage collector probe: %w", err)
	}
	if err := dyn.Resource(composites).Namespace(ns).Delete(ctx, "gc-probe", metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationForeground)}); err != nil {
		return fmt.Errorf("garbage collector probe: %w", err)
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 75*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := dyn.Resource(manageds).Namespace(ns).Get(ctx, "gc-probe", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		return fmt.Errorf("the garbage collector did not delete the blocking Managed of a foreground-deleted Composite within 75s (it learns new CRDs every 30s): %w", err)
	}
	return nil
}
