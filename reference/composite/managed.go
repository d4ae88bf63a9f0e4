package composite

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
	"github.com/steadystate-dev/steadystate/reference/external"
)

// CompositeReconciler makes the Managed of a Composite and mirrors its
// readiness.
type CompositeReconciler struct {
	client.Client
	Bug string
	// APIReader reads from the API server, not the cache:
	// delete-orphans-from-cache's fresh read of a Claim.
	APIReader client.Reader
}

var _ reconcile.Reconciler = (*CompositeReconciler)(nil)

// SetupWithManager watches Composites and the Manageds they own.
func (r *CompositeReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&refv1.Composite{}).Owns(&refv1.Managed{}).Complete(r)
}

// Reconcile ensures the Managed exists, owned with blockOwnerDeletion.
func (r *CompositeReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var xr refv1.Composite
	if err := r.Get(ctx, req.NamespacedName, &xr); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !xr.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil // the garbage collector deletes the Managed
	}
	if r.Bug == BugDeleteOrphansFromCache {
		if done, err := r.claimLabelsAndOrphans(ctx, &xr); err != nil || done {
			return ctrl.Result{}, err
		}
		// A poll, as Crossplane's composites have one: each Composite is
		// looked at again every second.
		res, err := r.managed(ctx, &xr)
		if err == nil && res.IsZero() {
			res.RequeueAfter = requeue
		}
		return res, err
	}
	return r.managed(ctx, &xr)
}

// managed ensures the Composite's Managed exists, in step with its spec,
// and mirrors its readiness.
func (r *CompositeReconciler) managed(ctx context.Context, xr *refv1.Composite) (ctrl.Result, error) {
	var mr refv1.Managed
	err := r.Get(ctx, client.ObjectKeyFromObject(xr), &mr)
	if apierrors.IsNotFound(err) {
		mr = refv1.Managed{ObjectMeta: metav1.ObjectMeta{Name: xr.Name, Namespace: xr.Namespace}, Spec: xr.Spec}
		if err := controllerutil.SetControllerReference(xr, &mr, r.Scheme()); err != nil {
			return ctrl.Result{}, err
		}
		mr.OwnerReferences[0].BlockOwnerDeletion = ptr.To(true)
		return ctrl.Result{}, r.Create(ctx, &mr)
	} else if err != nil {
		return ctrl.Result{}, err
	}
	if mr.Spec.Tier != xr.Spec.Tier && mr.DeletionTimestamp.IsZero() && metav1.IsControlledBy(&mr, xr) {
		// A change of the Composite's spec, synced down.
		mr.Spec.Tier = xr.Spec.Tier
		return ctrl.Result{}, r.Update(ctx, &mr)
	}
	status, reason := metav1.ConditionFalse, refv1.ReasonCreating
	if ready(mr.Status) {
		status, reason = metav1.ConditionTrue, refv1.ReasonAvailable
	}
	if set(&xr.Status, xr.Generation, refv1.TypeReady, status, reason, "") {
		return ctrl.Result{}, r.Status().Update(ctx, xr)
	}
	return ctrl.Result{}, nil
}

// claimLabelsAndOrphans is delete-orphans-from-cache's: the Composite
// carries its Claim's labels, copied from a fresh read of the Claim (the
// API server, not the cache), and a Composite whose Claim is not found by
// those labels is an orphan, deleted. done says the pass ends here.
//
// The mistake it models is a cleanup that trusts a stale cache: the
// controller reads its Claims fresh (here and in the Claim's own
// reconcile), but its orphan check lists them from the informer cache,
// which may be behind (a stalled or broken watch). The cache then does
// not list the Claim with the labels just copied, and a child whose
// parent exists is deleted as an orphan; made again, it is deleted again
// while the cache stays behind. A cleanup that deletes must confirm with
// a fresh read.
func (r *CompositeReconciler) claimLabelsAndOrphans(ctx context.Context, xr *refv1.Composite) (done bool, err error) {
	var claim refv1.Claim
	err = r.APIReader.Get(ctx, client.ObjectKeyFromObject(xr), &claim)
	if client.IgnoreNotFound(err) != nil {
		return true, err
	}
	if err == nil {
		missing := false
		for k, v := range claim.Labels {
			missing = missing || xr.Labels[k] != v
		}
		if missing {
			patch := client.MergeFrom(xr.DeepCopy())
			if xr.Labels == nil {
				xr.Labels = map[string]string{}
			}
			maps.Copy(xr.Labels, claim.Labels)
			return true, r.Patch(ctx, xr, patch)
		}
	}
	var claims refv1.ClaimList
	if err := r.List(ctx, &claims, client.InNamespace(xr.Namespace), client.MatchingLabels(xr.Labels)); err != nil {
		return true, err
	}
	if slices.ContainsFunc(claims.Items, func(c refv1.Claim) bool { return c.Name == xr.Name }) {
		return false, nil
	}
	err = r.Delete(ctx, xr, client.PropagationPolicy(metav1.DeletePropagationBackground))
	return true, client.IgnoreNotFound(err)
}

// ManagedReconciler is the provider: it creates, observes and deletes the
// external resource.
type ManagedReconciler struct {
	client.Client
	External *external.Client
	Bug      string
}

var _ reconcile.Reconciler = (*ManagedReconciler)(nil)

// SetupWithManager watches Manageds with several workers: external calls
// are slow, and providers reconcile Manageds concurrently (Crossplane's
// default rate is 10), which is what lets a new Managed race an old one.
func (r *ManagedReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&refv1.Managed{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: 4}).
		Complete(r)
}

// Reconcile keeps the external resource in step with the Managed.
func (r *ManagedReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var mr refv1.Managed
	if err := r.Get(ctx, req.NamespacedName, &mr); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	name, me := mr.Spec.ExternalName, string(mr.UID)
	if !mr.DeletionTimestamp.IsZero() {
		if !controllerutil.ContainsFinalizer(&mr, ProviderFinalizer) {
			return ctrl.Result{}, nil
		}
		if err := r.External.Delete(ctx, name, me); err != nil {
			msg := fmt.Sprintf("cannot delete external resource %s: %v", name, err)
			if set(&mr.Status, mr.Generation, refv1.TypeSynced, metav1.ConditionFalse, refv1.ReasonReconcileError, msg) {
				if err := r.Status().Update(ctx, &mr); err != nil {
					return ctrl.Result{}, client.IgnoreNotFound(err)
				}
			}
			return ctrl.Result{RequeueAfter: requeue}, nil
		}
		controllerutil.RemoveFinalizer(&mr, ProviderFinalizer)
		return ctrl.Result{}, client.IgnoreNotFound(r.Update(ctx, &mr))
	}
	if !controllerutil.ContainsFinalizer(&mr, ProviderFinalizer) {
		controllerutil.AddFinalizer(&mr, ProviderFinalizer)
		return ctrl.Result{}, r.Update(ctx, &mr)
	}

	if r.Bug != BugExternalNameReuse {
		// Do not touch the external resource while a predecessor with the
		// same external name is still deleting it.
		prev, err := r.predecessor(ctx, &mr)
		if err != nil {
			return ctrl.Result{}, err
		}
		if prev != "" {
			msg := fmt.Sprintf("external name %s is still used by Managed %s, which is being deleted", name, prev)
			if _, err := r.setReady(ctx, &mr, metav1.ConditionFalse, refv1.ReasonWaiting, msg); err != nil {
				return ctrl.Result{}, err
			}
			return ctrl.Result{RequeueAfter: requeue}, nil
		}
	}
	res, err := r.External.Observe(ctx, name, me)
	switch {
	case errors.Is(err, external.ErrNotFound):
		if err := r.External.Create(ctx, name, me); err != nil {
			return ctrl.Result{}, err
		}
		return r.setReady(ctx, &mr, metav1.ConditionFalse, refv1.ReasonCreating, "")
	case err != nil:
		return ctrl.Result{}, err
	case res.Owner != me && r.Bug != BugExternalNameReuse:
		// Its previous owner is still deleting it: wait, do not adopt.
		msg := fmt.Sprintf("external resource %s still belongs to a previous owner (%s) that is deleting it", name, res.Owner)
		if _, err := r.setReady(ctx, &mr, metav1.ConditionFalse, refv1.ReasonWaiting, msg); err != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{RequeueAfter: requeue}, nil
	}
	return r.setReady(ctx, &mr, metav1.ConditionTrue, refv1.ReasonAvailable, "")
}

// predecessor names another Managed in the namespace with the same
// external name, if there is one.
func (r *ManagedReconciler) predecessor(ctx context.Context, mr *refv1.Managed) (string, error) {
	var list refv1.ManagedList
	if err := r.List(ctx, &list, client.InNamespace(mr.Namespace)); err != nil {
		return "", err
	}
	for _, other := range list.Items {
		if other.UID != mr.UID && other.Spec.ExternalName == mr.Spec.ExternalName {
			return other.Namespace + "/" + other.Name, nil
		}
	}
	return "", nil
}

func (r *ManagedReconciler) setReady(ctx context.Context, mr *refv1.Managed, status metav1.ConditionStatus, reason, msg string) (ctrl.Result, error) {
	changed := set(&mr.Status, mr.Generation, refv1.TypeReady, status, reason, msg)
	changed = set(&mr.Status, mr.Generation, refv1.TypeSynced, metav1.ConditionTrue, refv1.ReasonReconcileSuccess, "") || changed
	if changed {
		return ctrl.Result{}, r.Status().Update(ctx, mr)
	}
	if status != metav1.ConditionTrue {
		return ctrl.Result{RequeueAfter: requeue}, nil
	}
	return ctrl.Result{}, nil
}
