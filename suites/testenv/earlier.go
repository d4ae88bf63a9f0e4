package testenv

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// EarlierRuns finds what earlier runs left in the cluster: the objects of
// a run's resources in the harness's other namespaces (NamespaceLabel)
// that are being deleted. A namespace's deletion goes on in the
// background, and a controller that watches every namespace meets what is
// still there (MetalLB gave the previous run's Service an address from the
// next run's pool, and kept it). The reconcile suite's runs delete what
// they applied and wait for it to go; what is left is another suite's, or
// a run's whose controller was stopped while its finalizer was on.
type EarlierRuns struct {
	Kube kubernetes.Interface
	Dyn  dynamic.Interface
	// Own is this run's namespace; Resources are the namespaced
	// resources of its objects.
	Own       string
	Resources []schema.GroupVersionResource
	// Poll is how often Clear looks again.
	Poll time.Duration
}

// leftover is one object an earlier run left, and its resource.
type leftover struct {
	gvr schema.GroupVersionResource
	u   unstructured.Unstructured
}

func (l leftover) String() string {
	return fmt.Sprintf("%s %s/%s", l.u.GetKind(), l.u.GetNamespace(), l.u.GetName())
}

// left lists them.
func (e EarlierRuns) left(ctx context.Context) ([]leftover, error) {
	nss, err := e.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: NamespaceLabel})
	if err != nil {
		return nil, fmt.Errorf("list the harness's namespaces: %w", err)
	}
	var out []leftover
	for _, ns := range nss.Items {
		if ns.Name == e.Own || ns.DeletionTimestamp == nil {
			continue
		}
		for _, gvr := range e.Resources {
			list, err := e.Dyn.Resource(gvr).Namespace(ns.Name).List(ctx, metav1.ListOptions{})
			if err != nil {
				return nil, fmt.Errorf("list %s in namespace %s: %w", gvr.Resource, ns.Name, err)
			}
			for _, u := range list.Items {
				out = append(out, leftover{gvr: gvr, u: u})
			}
		}
	}
	return out, nil
}

// Clear waits, up to within, until nothing is left; then it removes the
// finalizers of what is (nothing runs that would remove them: those
// runs' controllers are gone) and waits as long again. It returns the
// objects whose finalizers it removed, and an error naming what is still
// there after that, or the list that failed.
func (e EarlierRuns) Clear(ctx context.Context, within time.Duration) (stripped []string, err error) {
	// await polls until nothing is left or within passes; what is left
	// then is returned, with no error unless a list failed or ctx ended.
	await := func() ([]leftover, error) {
		var left []leftover
		// Each look lists under ctx, not the wait's own deadline: a list
		// begun as that deadline comes failed ("would exceed context
		// deadline", the client's rate limiter's word) and the spec with
		// it, where what was left at the last look should stand.
		err := wait.PollUntilContextTimeout(ctx, e.Poll, within, true, func(context.Context) (bool, error) {
			var err error
			left, err = e.left(ctx)
			return err == nil && len(left) == 0, err
		})
		if wait.Interrupted(err) && ctx.Err() == nil {
			return left, nil
		}
		return left, err
	}
	left, err := await()
	if err != nil || len(left) == 0 {
		return nil, err
	}
	for _, l := range left {
		err := EditFinalizers(ctx, e.Dyn.Resource(l.gvr).Namespace(l.u.GetNamespace()), l.u.GetName(), func([]string) []string { return nil })
		if err != nil && !apierrors.IsNotFound(err) {
			return stripped, fmt.Errorf("remove the finalizers of %s: %w", l, err)
		}
		stripped = append(stripped, l.String())
	}
	if left, err = await(); err != nil {
		return stripped, err
	}
	if len(left) > 0 {
		var names []string
		for _, l := range left {
			names = append(names, l.String())
		}
		return stripped, fmt.Errorf("objects of an earlier run are still in the cluster, in namespaces being deleted, %s after this run began and as long again after their finalizers were removed: %s; this run's controller would meet them (it may watch every namespace), so the run would not be judged on its own objects", within, strings.Join(names, ", "))
	}
	return stripped, nil
}
