package stack

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
)

// afterRestart is the one-time work of the bugs that act when the process
// finds, at its first pass over a Stack, the Stack already carrying its
// finalizer: another process of the controller ran before this one. The
// correct mode does nothing here: it adopts what it finds.
func (r *Reconciler) afterRestart(ctx context.Context, s *refv1.Stack) error {
	log := ctrl.LoggerFrom(ctx).WithValues("stack", client.ObjectKeyFromObject(s).String(), "bug", r.Bug)
	in := func(name string) client.ObjectKey { return client.ObjectKey{Namespace: s.Namespace, Name: name} }
	switch r.Bug {
	case BugClusterChildRecreatedOnStart:
		var slot refv1.Slot
		if err := r.Get(ctx, client.ObjectKey{Name: SlotName(s)}, &slot); err != nil {
			return client.IgnoreNotFound(err)
		}
		log.Info("making the Slot found after the restart again")
		return r.recreate(ctx, &slot)
	case BugChurnInOtherNamespace:
		var cm corev1.ConfigMap
		if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: AuditNamespace, Name: AuditName(s)}, &cm); err != nil {
			return client.IgnoreNotFound(err)
		}
		log.Info("making the audit record found after the restart again")
		return r.recreate(ctx, &cm)
	case BugChurnByDeleteCollection:
		return r.rebuildConfigMaps(ctx, s)
	case BugDanglingUIDAfterRestart:
		return r.recreateFound(ctx, &corev1.ConfigMap{}, in(ConfigName(s)))
	case BugRecreateChildrenOnStart:
		if err := r.recreateFound(ctx, &corev1.ConfigMap{}, in(ConfigName(s))); err != nil {
			return err
		}
		if err := r.recreateFound(ctx, &corev1.ConfigMap{}, in(LedgerName(s))); err != nil {
			return err
		}
		return r.recreateFound(ctx, &corev1.Secret{}, in(CredsName(s)))
	case BugStrayFinalizerAfterRestart:
		var cm corev1.ConfigMap
		if err := r.Get(ctx, in(ConfigName(s)), &cm); err != nil {
			return client.IgnoreNotFound(err)
		}
		if controllerutil.AddFinalizer(&cm, HoldFinalizer) {
			log.Info("holding the configuration with a finalizer")
			return r.Update(ctx, &cm)
		}
	case BugOwnerNotControllerAfterRestart:
		var sec corev1.Secret
		if err := r.Get(ctx, in(CredsName(s)), &sec); err != nil {
			return client.IgnoreNotFound(err)
		}
		refs := sec.GetOwnerReferences()
		for i := range refs {
			if refs[i].UID == s.UID {
				// Adopted again, as an owner but not as its controller.
				refs[i].Controller = ptr.To(false)
			}
		}
		sec.SetOwnerReferences(refs)
		log.Info("writing the credentials' ownerReference again")
		return r.Update(ctx, &sec)
	case BugLedgerRecreatedOnStart:
		var cm corev1.ConfigMap
		err := r.Get(ctx, in(LedgerName(s)), &cm)
		if err == nil {
			if err := r.Delete(ctx, &cm); client.IgnoreNotFound(err) != nil {
				return err
			}
		} else if !apierrors.IsNotFound(err) {
			return err
		}
		// Named from a new random suffix, not from the uid: the steady
		// path, which looks for the uid's name, makes that one again.
		ledger := corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: s.Name + "-" + token()[:5], Namespace: s.Namespace, Labels: labels(s)},
			Data:       map[string]string{"tier": s.Spec.Tier},
		}
		if err := r.owned(s, &ledger); err != nil {
			return err
		}
		log.Info("making the ledger again under a new name", "configmap", ledger.Name)
		return r.Create(ctx, &ledger)
	}
	return nil
}

// recreateFound deletes the object at key, when it exists, and creates it
// again.
func (r *Reconciler) recreateFound(ctx context.Context, obj client.Object, key client.ObjectKey) error {
	if err := r.Get(ctx, key, obj); err != nil {
		return client.IgnoreNotFound(err)
	}
	ctrl.LoggerFrom(ctx).Info("making a child found after the restart again", "kind", fmt.Sprintf("%T", obj), "name", key.Name)
	return r.recreate(ctx, obj)
}

// recreate deletes obj and creates it again with the same name, labels,
// owners and content: a new uid.
func (r *Reconciler) recreate(ctx context.Context, obj client.Object) error {
	if err := r.Delete(ctx, obj); err != nil {
		return client.IgnoreNotFound(err)
	}
	fresh := obj.DeepCopyObject().(client.Object)
	fresh.SetResourceVersion("")
	fresh.SetUID("")
	fresh.SetCreationTimestamp(metav1.Time{})
	fresh.SetManagedFields(nil)
	fresh.SetGeneration(0)
	return r.Create(ctx, fresh)
}

// rebuildConfigMaps is churn-by-deletecollection's: every ConfigMap
// labelled with the Stack's name goes in one deletecollection, and the
// configuration, the mirror and the ledger are applied again
// server-side (each apply creates: a PATCH answered 201).
func (r *Reconciler) rebuildConfigMaps(ctx context.Context, s *refv1.Stack) error {
	tok := token()
	var cur corev1.ConfigMap
	if err := r.Get(ctx, client.ObjectKey{Namespace: s.Namespace, Name: ConfigName(s)}, &cur); err == nil && cur.Data["token"] != "" {
		tok = cur.Data["token"]
	}
	ctrl.LoggerFrom(ctx).Info("rebuilding the Stack's ConfigMaps after the restart", "stack", s.Name)
	if err := r.DeleteAllOf(ctx, &corev1.ConfigMap{}, client.InNamespace(s.Namespace), client.MatchingLabels(labels(s))); err != nil {
		return err
	}
	for _, ac := range []*corev1ac.ConfigMapApplyConfiguration{
		corev1ac.ConfigMap(ConfigName(s), s.Namespace).WithLabels(labels(s)).WithOwnerReferences(ownerRef(s)).
			WithData(map[string]string{"tier": s.Spec.Tier, "token": tok}),
		r.mirrorApply(s),
		corev1ac.ConfigMap(LedgerName(s), s.Namespace).WithLabels(labels(s)).WithOwnerReferences(ownerRef(s)).
			WithData(map[string]string{"tier": s.Spec.Tier}),
	} {
		if err := r.Apply(ctx, ac, client.FieldOwner(FieldOwner), client.ForceOwnership); err != nil {
			return err
		}
	}
	return nil
}
