package testenv

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
)

var (
	gcMu     sync.Mutex
	resynced bool
)

// GCResynced waits, once per process, until kube-controller-manager's
// garbage collector has rediscovered the API since this moment. It learns
// new kinds on a 30s discovery resync; until it knows a subject's kinds
// (applied as CRDs, or made by the controller at its start), a
// foreground deletion finds no dependents and completes at once, leaving
// them behind, and what an object of such a kind owns outlives it by up
// to 30 s (longer than a binding's goneWithin may be). So the probe
// makes a kind of its own, now, and deletes a ClusterRole owning an
// object of that kind in the foreground: once the object is gone, the
// collector knows every kind that existed before it.
// Where the provider can restart kube-controller-manager (local), it does
// so once the probe's kind is served: the collector discovers the API at
// start, so the wait is seconds, not a resync. The probe's CRD is deleted
// after.
func GCResynced(ctx context.Context) (err error) {
	gcMu.Lock()
	defer gcMu.Unlock()
	if resynced {
		return nil
	}
	dyn := dynamic.NewForConfigOrDie(Get().REST)
	suffix := strconv.FormatInt(time.Now().UnixNano(), 36)
	group, plural, kind := "probe.steadystate.dev", "gcprobe"+suffix+"s", "GCProbe"+strings.ToUpper(suffix)
	crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": plural + "." + group},
		"spec": map[string]any{"group": group, "scope": "Cluster",
			"names": map[string]any{"kind": kind, "plural": plural},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}},
	}}
	if _, err := crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("garbage collector probe: create its CRD: %w", err)
	}
	probes := dyn.Resource(schema.GroupVersionResource{Group: group, Version: "v1", Resource: plural})
	roles := dyn.Resource(schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"})
	name := "steadystate-gc-probe-" + suffix
	// What the probe made goes whatever happens: its ClusterRole, if
	// still there, and its CRD (with any object of its kind).
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if derr := roles.Delete(cctx, name, metav1.DeleteOptions{}); derr != nil && !apierrors.IsNotFound(derr) {
			err = errors.Join(err, fmt.Errorf("garbage collector probe: delete its ClusterRole %s: %w", name, derr))
		}
		if derr := crds.Delete(cctx, crd.GetName(), metav1.DeleteOptions{}); derr != nil && !apierrors.IsNotFound(derr) {
			err = errors.Join(err, fmt.Errorf("garbage collector probe: delete its CRD %s: %w", crd.GetName(), derr))
		}
	}()

	// The new kind must be served before the probe can make one.
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := probes.List(ctx, metav1.ListOptions{Limit: 1})
		return err == nil, nil
	}); err != nil {
		return fmt.Errorf("garbage collector probe: its CRD %s is not served within 30s", crd.GetName())
	}
	restarted, err := RestartControllerManager(ctx)
	if err != nil {
		return fmt.Errorf("garbage collector probe: restart kube-controller-manager: %w", err)
	}
	// Restarted, the collector knows the kind in seconds; otherwise at
	// its next rediscovery, up to 30 s on, which a look a second waits
	// for as well as ten would (a cluster shared by several processes,
	// each probing, is not restarted).
	every := time.Second
	if restarted {
		every = 100 * time.Millisecond
	}
	owner, err := roles.Create(ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": map[string]any{"name": name}}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("garbage collector probe: create its ClusterRole: %w", err)
	}
	dep := &unstructured.Unstructured{Object: map[string]any{"apiVersion": group + "/v1", "kind": kind, "metadata": map[string]any{"name": name}}}
	dep.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: name, UID: owner.GetUID(),
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}})
	if _, err := probes.Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("garbage collector probe: create its %s: %w", kind, err)
	}
	if err := roles.Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationForeground)}); err != nil {
		return fmt.Errorf("garbage collector probe: %w", err)
	}
	if err := wait.PollUntilContextTimeout(ctx, every, 75*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := probes.Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	}); err != nil {
		return fmt.Errorf("the garbage collector did not delete the probe %s of a foreground-deleted ClusterRole within 75s (it rediscovers the API every 30s): %w", kind, err)
	}
	resynced = true
	return nil
}
