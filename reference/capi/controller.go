package capi

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
)

// The seeded bugs.
const (
	BugFinalizerWhileDeleting = "finalizer-while-deleting"
	BugCleanupWhilePaused     = "cleanup-while-paused"
)

// Finalizer is the controller's finalizer.
const Finalizer = "cluster.reference.steadystate.dev"

// Labels of the cleanup records.
const (
	LabelCleanupOf  = "reference.steadystate.dev/cleanup-of"
	LabelCleanupUID = "reference.steadystate.dev/cleanup-uid"
)

// +kubebuilder:rbac:groups=reference.steadystate.dev,resources=clusters,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=reference.steadystate.dev,resources=clusters/status,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create

// Reconciler reconciles Clusters.
type Reconciler struct {
	client.Client
	Bug string
}

var _ reconcile.Reconciler = (*Reconciler)(nil)

// SetupWithManager registers the controller.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&refv1.Cluster{}).Complete(r)
}

// Reconcile follows Cluster API's order: finalizer, pause, delete, normal.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	logger := log.FromContext(ctx)
	var c refv1.Cluster
	if err := r.Get(ctx, req.NamespacedName, &c); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	deleting := !c.DeletionTimestamp.IsZero()
	logger.Info("reconciling", "resourceVersion", c.ResourceVersion, "deleting", deleting, "paused", c.Spec.Paused)

	// EnsureFinalizer: a no-op while deleting, except with the bug.
	if (!deleting || r.Bug == BugFinalizerWhileDeleting) && !controllerutil.ContainsFinalizer(&c, Finalizer) {
		controllerutil.AddFinalizer(&c, Finalizer)
		if err := r.Update(ctx, &c); err != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{}, nil
	}

	if deleting && r.Bug == BugCleanupWhilePaused {
		return ctrl.Result{}, r.reconcileDelete(ctx, &c)
	}
	if c.Spec.Paused {
		logger.Info("paused, skipping", "resourceVersion", c.ResourceVersion)
		return ctrl.Result{}, r.setCondition(ctx, &c, refv1.TypePaused, metav1.ConditionTrue, refv1.ReasonReconcilePaused)
	}
	if deleting {
		return ctrl.Result{}, r.reconcileDelete(ctx, &c)
	}
	if err := r.setCondition(ctx, &c, refv1.TypePaused, metav1.ConditionFalse, refv1.ReasonReconcileSuccess); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, r.setCondition(ctx, &c, refv1.TypeReady, metav1.ConditionTrue, refv1.ReasonAvailable)
}

// reconcileDelete runs the external cleanup, then releases the finalizer.
func (r *Reconciler) reconcileDelete(ctx context.Context, c *refv1.Cluster) error {
	if !controllerutil.ContainsFinalizer(c, Finalizer) {
		return nil
	}
	record := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name: "cleanup-" + c.Name + "-" + string(c.UID)[:8], Namespace: c.Namespace,
			Labels: map[string]string{LabelCleanupOf: c.Name, LabelCleanupUID: string(c.UID)},
		},
		Data: map[string]string{"paused": boolString(c.Spec.Paused)},
	}
	if err := r.Create(ctx, record); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	log.FromContext(ctx).Info("external cleanup done", "paused", c.Spec.Paused)
	controllerutil.RemoveFinalizer(c, Finalizer)
	return client.IgnoreNotFound(r.Update(ctx, c))
}

func (r *Reconciler) setCondition(ctx context.Context, c *refv1.Cluster, typ string, status metav1.ConditionStatus, reason string) error {
	cond := meta.FindStatusCondition(c.Status.Conditions, typ)
	if cond != nil && cond.Status == status && cond.Reason == reason {
		return nil
	}
	meta.SetStatusCondition(&c.Status.Conditions, metav1.Condition{Type: typ, Status: status, Reason: reason, ObservedGeneration: c.Generation})
	return client.IgnoreNotFound(r.Status().Update(ctx, c))
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
