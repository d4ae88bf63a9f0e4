package composite

import (
	"context"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
)

// The seeded bugs.
const (
	BugDeletingStatusNotPersisted = "deleting-status-not-persisted"
	BugNoBlockingReason           = "no-blocking-reason"
	BugExternalNameReuse          = "external-name-reuse"
	BugStatusHotLoop              = "status-hot-loop"
	BugRecreateChildrenOnRestart  = "recreate-children-on-restart"
	BugReleaseFinalizerEarly      = "release-finalizer-early"
	BugDeleteOrphansFromCache     = "delete-orphans-from-cache"
	BugSkipChangesOnRelist        = "skip-changes-on-relist"
)

// Finalizers.
const (
	ClaimFinalizer    = "claim.reference.steadystate.dev"
	ProviderFinalizer = "managed.reference.steadystate.dev/provider"
)

// requeue is how often a waiting reconcile looks again.
const requeue = time.Second

// +kubebuilder:rbac:groups=reference.steadystate.dev,resources=claims;composites;manageds,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=reference.steadystate.dev,resources=claims/status;composites/status;manageds/status,verbs=get;update;patch

// ClaimReconciler makes a Composite per Claim and deletes it in the
// foreground.
type ClaimReconciler struct {
	client.Client
	Bug string
	// Namespace is the one namespace reconciled, "" for all: where
	// skip-changes-on-relist's own watch of Claims looks.
	Namespace string
	// APIReader reads from the API server, not the cache: the Claim
	// reconciled is read with it by skip-changes-on-relist, which has
	// no informer of Claims, and by delete-orphans-from-cache, which
	// reads fresh everywhere but in its orphan check.
	APIReader client.Reader

	// made are the uids of the Composites this process created: the only
	// children recreate-children-on-restart knows (it forgets them all
	// when it restarts).
	mu   sync.Mutex
	made map[types.UID]bool
}

var _ reconcile.Reconciler = (*ClaimReconciler)(nil)

// SetupWithManager watches Claims and the Composites they own.
func (r *ClaimReconciler) SetupWithManager(mgr ctrl.Manager) error {
	b := ctrl.NewControllerManagedBy(mgr)
	if r.Bug == BugSkipChangesOnRelist {
		// Claims come from a watch of its own (claimWatch), not from
		// an informer, and are read from the API server.
		c, err := client.NewWithWatch(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()})
		if err != nil {
			return err
		}
		events := make(chan event.GenericEvent)
		if err := mgr.Add(&claimWatch{c: c, ns: r.Namespace, events: events}); err != nil {
			return err
		}
		b = b.Named("claim").WatchesRawSource(source.Channel[client.Object](events, &handler.EnqueueRequestForObject{}))
	} else {
		b = b.For(&refv1.Claim{})
	}
	return b.Watches(&refv1.Composite{}, handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: client.ObjectKeyFromObject(o)}} // same name
	})).
		Complete(r)
}

// Reconcile drives a Claim.
func (r *ClaimReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var claim refv1.Claim
	claims := client.Reader(r.Client)
	if r.Bug == BugSkipChangesOnRelist || r.Bug == BugDeleteOrphansFromCache {
		claims = r.APIReader
	}
	if err := claims.Get(ctx, req.NamespacedName, &claim); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !claim.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, &claim)
	}
	if r.Bug == BugRecreateChildrenOnRestart {
		if res, done, err := r.childrenFromMemory(ctx, &claim); done {
			return res, err
		}
	}
	if !controllerutil.ContainsFinalizer(&claim, ClaimFinalizer) {
		controllerutil.AddFinalizer(&claim, ClaimFinalizer)
		return ctrl.Result{}, r.Update(ctx, &claim)
	}
	var xr refv1.Composite
	err := r.Get(ctx, req.NamespacedName, &xr)
	if apierrors.IsNotFound(err) {
		xr = refv1.Composite{ObjectMeta: metav1.ObjectMeta{Name: claim.Name, Namespace: claim.Namespace}, Spec: claim.Spec}
		if err := r.Create(ctx, &xr); err != nil {
			return ctrl.Result{}, err
		}
	} else if err != nil {
		return ctrl.Result{}, err
	} else if xr.Spec.Tier != claim.Spec.Tier && xr.DeletionTimestamp.IsZero() {
		// A change of the Claim's spec, synced down.
		xr.Spec.Tier = claim.Spec.Tier
		if err := r.Update(ctx, &xr); err != nil {
			return ctrl.Result{}, err
		}
	}
	changed := set(&claim.Status, claim.Generation, refv1.TypeSynced, metav1.ConditionTrue, refv1.ReasonReconcileSuccess, "")
	if ready(xr.Status) {
		changed = set(&claim.Status, claim.Generation, refv1.TypeReady, metav1.ConditionTrue, refv1.ReasonAvailable, "") || changed
	} else {
		msg := ""
		if c := meta.FindStatusCondition(xr.Status.Conditions, refv1.TypeReady); c != nil {
			msg = c.Message
		}
		changed = set(&claim.Status, claim.Generation, refv1.TypeReady, metav1.ConditionFalse, refv1.ReasonCreating, msg) || changed
	}
	if r.Bug == BugStatusHotLoop {
		// A heartbeat in status: Synced is stamped with the time of every
		// reconcile and status written whether or not anything changed.
		// The stamp's own watch event and a resync every second bring the
		// next reconcile, so the controller never goes quiet.
		meta.FindStatusCondition(claim.Status.Conditions, refv1.TypeSynced).LastTransitionTime = metav1.Now()
		if err := r.Status().Update(ctx, &claim); err != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{RequeueAfter: requeue}, nil
	}
	if changed {
		return ctrl.Result{}, r.Status().Update(ctx, &claim)
	}
	return ctrl.Result{}, nil
}

func (r *ClaimReconciler) reconcileDelete(ctx context.Context, claim *refv1.Claim) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(claim, ClaimFinalizer) {
		return ctrl.Result{}, nil
	}
	if r.Bug == BugReleaseFinalizerEarly {
		// The finalizer is released as the deletion starts, the Composite
		// left for the next pass: there is none, the Claim is gone by
		// then, and nothing else deletes a Composite (it has no
		// ownerReference). It stays, with its Managed and the external
		// resource.
		controllerutil.RemoveFinalizer(claim, ClaimFinalizer)
		if err := r.Update(ctx, claim); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
		return ctrl.Result{RequeueAfter: requeue}, nil
	}
	message := "deleting the composite resource"
	var xr refv1.Composite
	err := r.Get(ctx, client.ObjectKeyFromObject(claim), &xr)
	switch {
	case apierrors.IsNotFound(err):
		controllerutil.RemoveFinalizer(claim, ClaimFinalizer)
		return ctrl.Result{}, client.IgnoreNotFound(r.Update(ctx, claim))
	case err != nil:
		return ctrl.Result{}, err
	case xr.DeletionTimestamp.IsZero():
		if err := r.Delete(ctx, &xr, client.PropagationPolicy(metav1.DeletePropagationForeground)); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, err
		}
	}
	if r.Bug != BugNoBlockingReason {
		if blocking, err := r.blockingReason(ctx, &xr); err != nil {
			return ctrl.Result{}, err
		} else if blocking != "" {
			message = blocking
		}
	}
	changed := set(&claim.Status, claim.Generation, refv1.TypeReady, metav1.ConditionFalse, refv1.ReasonDeleting, message)
	if r.Bug == BugDeletingStatusNotPersisted {
		// crossplane#5416: the condition was set on the in-memory object
		// and the reconciler returned before writing status.
		return ctrl.Result{RequeueAfter: requeue}, nil
	}
	if changed {
		if err := r.Status().Update(ctx, claim); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}
	return ctrl.Result{RequeueAfter: requeue}, nil
}

// childrenFromMemory is recreate-children-on-restart's way to the
// Composite: before the finalizer (so a restart right after the first
// write finds a child), it creates the Composite and keeps its uid in
// memory, and a Composite it finds that it has no memory of, one a
// previous run of the process made, it deletes and makes again instead of
// adopting it. done says the pass ends here, with res and err.
func (r *ClaimReconciler) childrenFromMemory(ctx context.Context, claim *refv1.Claim) (res ctrl.Result, done bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.made == nil {
		r.made = map[types.UID]bool{}
	}
	var xr refv1.Composite
	err = r.Get(ctx, client.ObjectKeyFromObject(claim), &xr)
	switch {
	case apierrors.IsNotFound(err):
		xr = refv1.Composite{ObjectMeta: metav1.ObjectMeta{Name: claim.Name, Namespace: claim.Namespace}, Spec: claim.Spec}
		if err := r.Create(ctx, &xr); err != nil {
			return ctrl.Result{}, true, err
		}
		r.made[xr.UID] = true
		return ctrl.Result{}, true, nil
	case err != nil:
		return ctrl.Result{}, true, err
	case !xr.DeletionTimestamp.IsZero():
		return ctrl.Result{RequeueAfter: requeue}, true, nil // wait until it is gone
	case !r.made[xr.UID]:
		err := r.Delete(ctx, &xr, client.PropagationPolicy(metav1.DeletePropagationForeground))
		return ctrl.Result{RequeueAfter: requeue}, true, client.IgnoreNotFound(err)
	}
	return ctrl.Result{}, false, nil
}

// blockingReason names a Managed of the Composite that cannot be deleted.
func (r *ClaimReconciler) blockingReason(ctx context.Context, xr *refv1.Composite) (string, error) {
	var list refv1.ManagedList
	if err := r.List(ctx, &list, client.InNamespace(xr.Namespace)); err != nil {
		return "", err
	}
	for _, mr := range list.Items {
		owner := metav1.GetControllerOf(&mr)
		if owner == nil || owner.UID != xr.UID {
			continue
		}
		if c := meta.FindStatusCondition(mr.Status.Conditions, refv1.TypeSynced); c != nil && c.Status == metav1.ConditionFalse {
			return fmt.Sprintf("waiting for Managed %s/%s to be deleted: %s", mr.Namespace, mr.Name, c.Message), nil
		}
		if !mr.DeletionTimestamp.IsZero() {
			return fmt.Sprintf("waiting for Managed %s/%s to be deleted", mr.Namespace, mr.Name), nil
		}
	}
	return "", nil
}
