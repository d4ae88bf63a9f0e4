package foreground

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// gcProbe is an owner and a dependent the garbage collector must know:
// the dependent's kind is the one a foreground deletion waits for.
type gcProbe struct {
	owner, dependent         schema.GroupVersionResource
	ownerKind, depKind       string
	namespaced               bool
	ownerSpec, dependentSpec map[string]any
}

// referenceProbe is a Composite owning a Managed, as the reference
// controller composes them.
var referenceProbe = gcProbe{
	owner: refv1.GroupVersion.WithResource("composites"), ownerKind: "Composite",
	dependent: manageds, depKind: "Managed", namespaced: true,
	ownerSpec: map[string]any{"externalName": "gc-probe"}, dependentSpec: map[string]any{"externalName": "gc-probe"},
}

// resyncProbe makes a kind of its own, now, and probes with it under a
// ClusterRole: once the collector handles that kind, it has rediscovered
// every kind that existed before it, including those a subject made at
// its start (a claim's composite kind, created by the controller). The
// CRD is deleted when the probe ends.
func resyncProbe(ctx context.Context) (gcProbe, func(), error) {
	suffix := strconv.FormatInt(time.Now().UnixNano(), 36)
	group := "probe.steadystate.dev"
	plural, kind := "gcprobe"+suffix+"s", "GCProbe"+strings.ToUpper(suffix)
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": plural + "." + group},
		"spec": map[string]any{"group": group, "scope": "Cluster",
			"names": map[string]any{"kind": kind, "plural": plural},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}},
	}}
	crds := dynamic.NewForConfigOrDie(testenv.Get().REST).Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	if _, err := crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		return gcProbe{}, nil, fmt.Errorf("garbage collector probe: create its CRD: %w", err)
	}
	remove := func() { crds.Delete(context.Background(), crd.GetName(), metav1.DeleteOptions{}) }
	p := gcProbe{
		owner: schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}, ownerKind: "ClusterRole",
		dependent: schema.GroupVersionResource{Group: group, Version: "v1", Resource: plural}, depKind: kind,
	}
	// The new kind must be served before the probe can make one.
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := dynamic.NewForConfigOrDie(testenv.Get().REST).Resource(p.dependent).List(ctx, metav1.ListOptions{Limit: 1})
		return err == nil, nil
	})
	if err != nil {
		remove()
		return gcProbe{}, nil, fmt.Errorf("garbage collector probe: its CRD %s is not served within 30s", crd.GetName())
	}
	return p, remove, nil
}

var (
	gcMu    sync.Mutex
	gcKnown = map[schema.GroupVersionResource]bool{}
)

// gcReady waits, once per process and dependent kind, until
// kube-controller-manager's garbage collector handles the kind. It learns
// new CRDs on a 30s discovery resync; until it knows the kind, a
// foreground deletion of an owner finds no dependents and completes at
// once, leaving them behind. So a probe owner with a dependent is deleted
// in the foreground, in a namespace of its own that no subject watches,
// and the collector is ready once the dependent is gone.
func gcReady(ctx context.Context, p gcProbe) error {
	gcMu.Lock()
	defer gcMu.Unlock()
	if gcKnown[p.dependent] {
		return nil
	}
	kube := testenv.Get().Kube
	ns, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "gc-probe-",
		Labels: map[string]string{testenv.NamespaceLabel: "true"}}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("garbage collector probe: %w", err)
	}
	defer kube.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	if err := p.run(ctx, dynamic.NewForConfigOrDie(testenv.Get().REST), ns.Name); err != nil {
		return err
	}
	gcKnown[p.dependent] = true
	return nil
}

func (p gcProbe) run(ctx context.Context, dyn dynamic.Interface, ns string) error {
	client := func(gvr schema.GroupVersionResource, namespaced bool) dynamic.ResourceInterface {
		if namespaced {
			return dyn.Resource(gvr).Namespace(ns)
		}
		return dyn.Resource(gvr)
	}
	name := ns // unique, also for cluster-scoped probes
	obj := func(gvr schema.GroupVersionResource, kind string, spec map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": gvr.GroupVersion().String(), "kind": kind, "metadata": map[string]any{"name": name}}}
		if p.namespaced {
			u.SetNamespace(ns)
		}
		if spec != nil {
			u.Object["spec"] = spec
		}
		return u
	}
	owners, deps := client(p.owner, p.namespaced), client(p.dependent, p.namespaced)
	owner, err := owners.Create(ctx, obj(p.owner, p.ownerKind, p.ownerSpec), metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("garbage collector probe: create %s: %w", p.ownerKind, err)
	}
	dep := obj(p.dependent, p.depKind, p.dependentSpec)
	dep.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: p.owner.GroupVersion().String(), Kind: p.ownerKind, Name: owner.GetName(), UID: owner.GetUID(),
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}})
	if _, err := deps.Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		owners.Delete(context.Background(), name, metav1.DeleteOptions{})
		return fmt.Errorf("garbage collector probe: create a %s with no spec (the probe needs one): %w", p.depKind, err)
	}
	if err := owners.Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationForeground)}); err != nil {
		return fmt.Errorf("garbage collector probe: %w", err)
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 75*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := deps.Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		return fmt.Errorf("the garbage collector did not delete the probe %s of a foreground-deleted %s within 75s (it learns new CRDs every 30s): %w", p.depKind, p.ownerKind, err)
	}
	return nil
}

var resynced bool

// gcResynced waits, once per process, until the garbage collector has
// rediscovered the API after this moment (see resyncProbe).
func gcResynced(ctx context.Context) error {
	gcMu.Lock()
	done := resynced
	gcMu.Unlock()
	if done {
		return nil
	}
	p, remove, err := resyncProbe(ctx)
	if err != nil {
		return err
	}
	defer remove()
	if err := gcReady(ctx, p); err != nil {
		return err
	}
	gcMu.Lock()
	resynced = true
	gcMu.Unlock()
	return nil
}
