package stack

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
)

// finalize is the cleanup of a Stack being deleted: it deletes the
// children the garbage collector does not (they have no ownerReference:
// the mirror, the Slot, the audit record), waits until they are gone,
// takes its hold finalizer off the configuration, then releases the
// Stack's finalizer. The owned children go with the Stack.
func (r *Reconciler) finalize(ctx context.Context, s *refv1.Stack) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)
	if !controllerutil.ContainsFinalizer(s, Finalizer) {
		return ctrl.Result{}, nil
	}
	if r.Bug == BugSecondFinalizerWhileDeleting && !controllerutil.ContainsFinalizer(s, AuditFinalizer) {
		// A finalizer of its own for the audit record, added without
		// looking at the deletionTimestamp: the API server refuses it
		// (422), and the cleanup goes on.
		with := s.DeepCopy()
		controllerutil.AddFinalizer(with, AuditFinalizer)
		if err := r.Patch(ctx, with, client.MergeFrom(s)); err != nil {
			log.Info("could not add the audit finalizer; cleaning up without it", "error", err.Error())
		}
	}
	if err := r.releaseHold(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	var gone []client.Object
	if r.Bug != BugLeakByApply {
		gone = append(gone, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: MirrorName(s)}})
	}
	if r.Bug != BugLeakClusterChild {
		gone = append(gone, &refv1.Slot{ObjectMeta: metav1.ObjectMeta{Name: SlotName(s)}})
	}
	if r.Bug != BugLeakInOtherNamespace {
		gone = append(gone, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: AuditNamespace, Name: AuditName(s)}})
	}
	waiting := false
	for _, obj := range gone {
		left, err := r.deleted(ctx, obj)
		if err != nil {
			return ctrl.Result{}, err
		}
		waiting = waiting || left
	}
	if waiting {
		return ctrl.Result{RequeueAfter: waitGone}, nil
	}
	if r.Bug == BugFinalizerNeverReleased {
		log.Info("cleanup done", "stack", client.ObjectKeyFromObject(s).String())
		return ctrl.Result{}, nil
	}
	mirror := r.mirrorApply(s)
	controllerutil.RemoveFinalizer(s, Finalizer)
	err := r.Update(ctx, s)
	if r.Bug == BugResurrectOnDelete && (err == nil || apierrors.IsNotFound(err)) {
		// A write still in flight from before the cleanup: the mirror,
		// as it was, applied again once the Stack is gone. A second
		// pass on a cache that still has the Stack deletes the mirror
		// again and finds the Stack gone: its write is in flight too.
		go func() {
			time.Sleep(resurrectAfter)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := r.Apply(ctx, mirror, client.FieldOwner(FieldOwner), client.ForceOwnership); err != nil {
				log.Error(err, "apply the mirror")
			}
		}()
	}
	return ctrl.Result{}, client.IgnoreNotFound(err)
}

// deleted deletes obj unless it is gone already, and reports whether it
// is still there (read from the API server).
func (r *Reconciler) deleted(ctx context.Context, obj client.Object) (left bool, err error) {
	key := client.ObjectKeyFromObject(obj)
	cur := obj.DeepCopyObject().(client.Object)
	err = r.APIReader.Get(ctx, key, cur)
	if apierrors.IsNotFound(err) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	if cur.GetDeletionTimestamp().IsZero() {
		if err := r.Delete(ctx, cur); client.IgnoreNotFound(err) != nil {
			return false, fmt.Errorf("delete %T %s: %w", obj, key, err)
		}
	}
	err = r.APIReader.Get(ctx, key, cur)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return true, err
}

// releaseHold takes HoldFinalizer off the configuration (read from the
// API server), whichever process of the controller put it on.
func (r *Reconciler) releaseHold(ctx context.Context, s *refv1.Stack) error {
	var cm corev1.ConfigMap
	if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: s.Namespace, Name: ConfigName(s)}, &cm); err != nil {
		return client.IgnoreNotFound(err)
	}
	if !controllerutil.ContainsFinalizer(&cm, HoldFinalizer) {
		return nil
	}
	controllerutil.RemoveFinalizer(&cm, HoldFinalizer)
	return client.IgnoreNotFound(r.Update(ctx, &cm))
}
