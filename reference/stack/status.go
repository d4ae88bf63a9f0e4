package stack

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
)

// status writes s's status, with a merge patch (no resourceVersion, so a
// stale cache meets no conflict), when it differs from what is stored:
// the generation observed, the tier, the configuration's uid, and Ready,
// Available and Synced, each with the generation it observed.
func (r *Reconciler) status(ctx context.Context, s *refv1.Stack, m *memo, g got, restarted bool) (ctrl.Result, error) {
	var res ctrl.Result
	after := func(d time.Duration) {
		if d > 0 && (res.RequeueAfter == 0 || d < res.RequeueAfter) {
			res.RequeueAfter = d
		}
	}
	now := time.Now()
	want := s.Status.DeepCopy()
	want.ObservedGeneration = s.Generation
	if r.Bug != BugStaleTierStatusAfterRestart || !restarted || want.Tier == "" {
		want.Tier = s.Spec.Tier
	}
	if uid := string(g.config.UID); r.Bug != BugDanglingUIDAfterRestart || want.ConfigUID == "" {
		// dangling-uid-after-restart records the uid once, never again.
		want.ConfigUID = uid
	}
	set := func(typ string, status metav1.ConditionStatus, reason, message string) {
		meta.SetStatusCondition(&want.Conditions, metav1.Condition{Type: typ, Status: status, Reason: reason, Message: message, ObservedGeneration: s.Generation})
	}
	if g.secret {
		set(refv1.TypeReady, metav1.ConditionTrue, refv1.ReasonAvailable, "")
		set(TypeAvailable, metav1.ConditionTrue, refv1.ReasonAvailable, "")
	} else {
		msg := "waiting for Secret " + s.Namespace + "/" + s.Spec.SecretName
		set(refv1.TypeReady, metav1.ConditionFalse, ReasonSecretMissing, msg)
		set(TypeAvailable, metav1.ConditionFalse, ReasonSecretMissing, msg)
	}
	set(refv1.TypeSynced, metav1.ConditionTrue, refv1.ReasonReconcileSuccess, "")

	switch {
	case r.Bug == BugNeverAvailable:
		set(TypeAvailable, metav1.ConditionFalse, ReasonMinimumReplicasUnavailable, "minimum replicas unavailable")
	case r.Bug == BugSyncedFalse:
		set(refv1.TypeSynced, metav1.ConditionFalse, refv1.ReasonReconcileError, "reconcile failed")
	case r.Bug == BugDegradedAlways:
		set(TypeDegraded, metav1.ConditionTrue, refv1.ReasonUnavailable, "degraded")
	case r.Bug == BugDegradedAfterRestart && restarted:
		set(TypeDegraded, metav1.ConditionTrue, ReasonRestarted, "found objects this process did not make")
	case r.Bug == BugStatusFlaps && g.secret:
		// Once everything is in place, Ready is True for the first
		// quarter second of every 3 and False for the rest: never ready
		// for a settle window, even when the write that ends a True
		// period comes late.
		r.mu.Lock()
		if m.settledAt.IsZero() {
			m.settledAt = now
		}
		into := now.Sub(m.settledAt) % flapCycle
		r.mu.Unlock()
		if into >= flapReady {
			set(refv1.TypeReady, metav1.ConditionFalse, refv1.ReasonUnavailable, "flapping")
			after(flapCycle - into)
		} else {
			after(flapReady - into)
		}
	case r.Bug == BugStatusRewriteEvery30s:
		// A heartbeat: Synced's lastTransitionTime every 30 s, written
		// only once 30 s have passed since the last (so its own event
		// does not bring another).
		r.mu.Lock()
		since := now.Sub(m.stampedAt)
		if m.stampedAt.IsZero() || since >= heartbeat {
			meta.FindStatusCondition(want.Conditions, refv1.TypeSynced).LastTransitionTime = metav1.NewTime(now)
			m.stampedAt, since = now, 0
		}
		r.mu.Unlock()
		after(heartbeat - since)
	case r.Bug == BugHotLoopAfterRestart && restarted:
		meta.FindStatusCondition(want.Conditions, refv1.TypeSynced).LastTransitionTime = metav1.NewTime(now)
		after(hotLoopInterval)
	}
	if equality.Semantic.DeepEqual(&s.Status, want) {
		return res, nil
	}
	if r.Bug == BugSlowAfterRefusal {
		// A status writer that backs off 60 s after a refused write: the
		// children are synced, the status waits.
		r.mu.Lock()
		refusedAt := m.refusedAt
		r.mu.Unlock()
		if wait := slowFor - now.Sub(refusedAt); !refusedAt.IsZero() && wait > 0 {
			return ctrl.Result{RequeueAfter: wait}, nil
		}
	}
	patch := client.MergeFrom(s.DeepCopy())
	s.Status = *want
	if err := r.Status().Patch(ctx, s, patch); err != nil {
		return ctrl.Result{}, err
	}
	return res, nil
}
