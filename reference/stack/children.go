package stack

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
)

// got is what a pass found or made of the children.
type got struct {
	config *corev1.ConfigMap
	// secret is false while the Secret the Stack copies does not exist.
	secret bool
}

// children brings every child of s in step with its spec, in order: the
// configuration, the mirror, the ledger, the credentials, the Slot (and
// its name in the Stack's spec) and the audit record.
func (r *Reconciler) children(ctx context.Context, s *refv1.Stack, m *memo, mark, restarted bool) (got, error) {
	var g got
	var err error
	if g.config, err = r.config(ctx, s, m); err != nil {
		return g, fmt.Errorf("configuration: %w", err)
	}
	if err := r.mirror(ctx, s, mark); err != nil {
		return g, fmt.Errorf("mirror: %w", err)
	}
	if err := r.ledger(ctx, s); err != nil {
		return g, fmt.Errorf("ledger: %w", err)
	}
	if g.secret, err = r.creds(ctx, s, restarted); err != nil {
		return g, fmt.Errorf("credentials: %w", err)
	}
	if err := r.slot(ctx, s, restarted); err != nil {
		return g, fmt.Errorf("slot: %w", err)
	}
	if err := r.slotRef(ctx, s, restarted); err != nil {
		return g, fmt.Errorf("slot name: %w", err)
	}
	if err := r.audit(ctx, s); err != nil {
		return g, fmt.Errorf("audit record: %w", err)
	}
	if r.Bug == BugExtraChildAfterRefusal {
		if err := r.extraChild(ctx, s, m); err != nil {
			return g, fmt.Errorf("retry ConfigMap: %w", err)
		}
	}
	return g, nil
}

// owned sets s as obj's controller, blocking its deletion.
func (r *Reconciler) owned(s *refv1.Stack, obj client.Object) error {
	if err := controllerutil.SetControllerReference(s, obj, r.Scheme()); err != nil {
		return err
	}
	refs := obj.GetOwnerReferences()
	for i := range refs {
		if refs[i].UID == s.UID {
			refs[i].BlockOwnerDeletion = ptr.To(true)
		}
	}
	obj.SetOwnerReferences(refs)
	return nil
}

// ownerRef is s as an owner in an apply configuration.
func ownerRef(s *refv1.Stack) *metav1ac.OwnerReferenceApplyConfiguration {
	return metav1ac.OwnerReference().WithAPIVersion(refv1.GroupVersion.String()).WithKind("Stack").
		WithName(s.Name).WithUID(s.UID).WithController(true).WithBlockOwnerDeletion(true)
}

func labels(s *refv1.Stack) map[string]string { return map[string]string{LabelName: s.Name} }

// token is 8 random hex digits: a nonce chosen once, when the
// configuration is made.
func token() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// config is the owned configuration ConfigMap: its tier, and a token
// chosen at its creation.
func (r *Reconciler) config(ctx context.Context, s *refv1.Stack, m *memo) (*corev1.ConfigMap, error) {
	var cm corev1.ConfigMap
	err := r.Get(ctx, client.ObjectKey{Namespace: s.Namespace, Name: ConfigName(s)}, &cm)
	switch {
	case apierrors.IsNotFound(err):
		cm = corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: ConfigName(s), Namespace: s.Namespace, Labels: labels(s)},
			Data:       map[string]string{"tier": s.Spec.Tier, "token": token()},
		}
		if err := r.owned(s, &cm); err != nil {
			return nil, err
		}
		return &cm, r.Create(ctx, &cm)
	case err != nil:
		return nil, err
	case cm.Data["tier"] == s.Spec.Tier || !cm.DeletionTimestamp.IsZero():
		return &cm, nil
	}
	cm.Data = maps.Clone(cm.Data)
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data["tier"] = s.Spec.Tier
	r.mu.Lock()
	drop := r.Bug == BugDropFieldAfterRefusal && m.dropToken
	r.mu.Unlock()
	if drop {
		// The retry's template: the tier, without what was set once
		// at the creation.
		ctrl.LoggerFrom(ctx).Info("updating the configuration after a refused write", "configmap", cm.Name)
		delete(cm.Data, "token")
	}
	if err := r.Update(ctx, &cm); err != nil {
		return nil, err
	}
	r.mu.Lock()
	m.dropToken = false
	r.mu.Unlock()
	return &cm, nil
}

// mirrorApply is the mirror's apply configuration: the tier, no owner.
func (r *Reconciler) mirrorApply(s *refv1.Stack) *corev1ac.ConfigMapApplyConfiguration {
	ac := corev1ac.ConfigMap(MirrorName(s), s.Namespace).WithLabels(labels(s)).WithData(map[string]string{"tier": s.Spec.Tier})
	if r.Bug == BugOrphanMirrorOnRelist {
		ac = ac.WithAnnotations(map[string]string{AnnotationGeneration: strconv.FormatInt(s.Generation, 10)})
	}
	return ac
}

// mirror is the ConfigMap applied server-side with no ownerReference,
// labelled with the Stack's name: applied when it is missing or its tier
// differs (unowned-child-stale-after-refusal: the latter only under
// mark).
func (r *Reconciler) mirror(ctx context.Context, s *refv1.Stack, mark bool) error {
	var cm corev1.ConfigMap
	err := r.Get(ctx, client.ObjectKey{Namespace: s.Namespace, Name: MirrorName(s)}, &cm)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return err
	case !cm.DeletionTimestamp.IsZero():
		return nil
	case cm.Data["tier"] == s.Spec.Tier && (r.Bug != BugOrphanMirrorOnRelist || cm.Annotations[AnnotationGeneration] == strconv.FormatInt(s.Generation, 10)):
		return nil
	case r.Bug == BugUnownedChildStaleAfterRefusal && !mark:
		// Edge-triggered: the mirror follows a change of the Stack's
		// spec only in the pass its event marked.
		return nil
	}
	return r.Apply(ctx, r.mirrorApply(s), client.FieldOwner(FieldOwner), client.ForceOwnership)
}

// ledger is the owned ConfigMap named from the Stack's uid.
func (r *Reconciler) ledger(ctx context.Context, s *refv1.Stack) error {
	var cm corev1.ConfigMap
	err := r.Get(ctx, client.ObjectKey{Namespace: s.Namespace, Name: LedgerName(s)}, &cm)
	switch {
	case apierrors.IsNotFound(err):
		cm = corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: LedgerName(s), Namespace: s.Namespace, Labels: labels(s)},
			Data:       map[string]string{"tier": s.Spec.Tier},
		}
		if err := r.owned(s, &cm); err != nil {
			return err
		}
		return r.Create(ctx, &cm)
	case err != nil:
		return err
	case cm.Data["tier"] == s.Spec.Tier || !cm.DeletionTimestamp.IsZero():
		return nil
	}
	cm.Data = maps.Clone(cm.Data)
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data["tier"] = s.Spec.Tier
	return r.Update(ctx, &cm)
}

// creds is the owned Secret holding a copy of the data of the Secret the
// Stack names. It reports false while that Secret does not exist.
// secret-not-resynced-after-restart makes it once and, after a restart,
// never updates it.
func (r *Reconciler) creds(ctx context.Context, s *refv1.Stack, restarted bool) (bool, error) {
	var src corev1.Secret
	if s.Spec.SecretName == "" {
		return false, nil
	}
	err := r.Get(ctx, client.ObjectKey{Namespace: s.Namespace, Name: s.Spec.SecretName}, &src)
	if apierrors.IsNotFound(err) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	var sec corev1.Secret
	err = r.Get(ctx, client.ObjectKey{Namespace: s.Namespace, Name: CredsName(s)}, &sec)
	switch {
	case apierrors.IsNotFound(err):
		sec = corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: CredsName(s), Namespace: s.Namespace},
			Type:       corev1.SecretTypeOpaque,
			Data:       maps.Clone(src.Data),
		}
		if err := r.owned(s, &sec); err != nil {
			return false, err
		}
		return true, r.Create(ctx, &sec)
	case err != nil:
		return false, err
	case sameData(sec.Data, src.Data) || !sec.DeletionTimestamp.IsZero():
		return true, nil
	case r.Bug == BugSecretNotResyncedAfterRestart && restarted:
		return true, nil
	}
	sec.Data = maps.Clone(src.Data)
	return true, r.Update(ctx, &sec)
}

func sameData(a, b map[string][]byte) bool {
	return maps.EqualFunc(a, b, func(x, y []byte) bool { return string(x) == string(y) })
}

// desiredSlot is the Stack's Slot.
func desiredSlot(s *refv1.Stack) *refv1.Slot {
	return &refv1.Slot{
		ObjectMeta: metav1.ObjectMeta{Name: SlotName(s), Labels: labels(s)},
		Spec:       refv1.SlotSpec{Tier: s.Spec.Tier, Stack: s.Namespace + "/" + s.Name},
	}
}

// slot is the cluster-scoped Slot, with no ownerReference.
// cluster-child-stale-after-restart makes it once and, after a restart,
// never updates it.
func (r *Reconciler) slot(ctx context.Context, s *refv1.Stack, restarted bool) error {
	var slot refv1.Slot
	err := r.Get(ctx, client.ObjectKey{Name: SlotName(s)}, &slot)
	want := desiredSlot(s)
	switch {
	case apierrors.IsNotFound(err):
		return r.Create(ctx, want)
	case err != nil:
		return err
	case slot.Spec == want.Spec || !slot.DeletionTimestamp.IsZero():
		return nil
	case r.Bug == BugClusterChildStaleAfterRestart && restarted:
		return nil
	}
	slot.Spec = want.Spec
	return r.Update(ctx, &slot)
}

// slotRef names the Slot in the Stack's spec.slotName (a merge patch of
// that field alone), once the Slot is made. slot-name-rewritten-after-restart,
// restarted, writes the Stack's name alone there (an older version's
// format, which names no Slot) and takes it for right from then on.
func (r *Reconciler) slotRef(ctx context.Context, s *refv1.Stack, restarted bool) error {
	want := SlotName(s)
	if r.Bug == BugSlotNameRewrittenAfterRestart && restarted {
		want = s.Name
	}
	if s.Spec.SlotName == want {
		return nil
	}
	orig := s.DeepCopy()
	s.Spec.SlotName = want
	return r.Patch(ctx, s, client.MergeFrom(orig))
}

// audit is the record of the Stack in AuditNamespace, read from the API
// server (the cache may not hold that namespace), with no ownerReference.
func (r *Reconciler) audit(ctx context.Context, s *refv1.Stack) error {
	want := map[string]string{"stack": s.Namespace + "/" + s.Name}
	var cm corev1.ConfigMap
	err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: AuditNamespace, Name: AuditName(s)}, &cm)
	switch {
	case apierrors.IsNotFound(err):
		cm = corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: AuditName(s), Namespace: AuditNamespace}, Data: want}
		return r.Create(ctx, &cm)
	case err != nil:
		return err
	case maps.Equal(cm.Data, want) || !cm.DeletionTimestamp.IsZero():
		return nil
	}
	cm.Data = want
	return r.Update(ctx, &cm)
}

// extraChild is extra-child-after-refusal's: after a refused write, one
// more owned ConfigMap, with a generated name.
func (r *Reconciler) extraChild(ctx context.Context, s *refv1.Stack, m *memo) error {
	r.mu.Lock()
	extra := m.extra
	r.mu.Unlock()
	if !extra {
		return nil
	}
	cm := corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{GenerateName: s.Name + "-retry-", Namespace: s.Namespace},
		Data:       map[string]string{"tier": s.Spec.Tier},
	}
	if err := r.owned(s, &cm); err != nil {
		return err
	}
	if err := r.Create(ctx, &cm); err != nil {
		return err
	}
	ctrl.LoggerFrom(ctx).Info("made a ConfigMap after a refused write", "configmap", cm.Name)
	r.mu.Lock()
	m.extra = false
	r.mu.Unlock()
	return nil
}

// cutKey splits namespace/name.
func cutKey(key string) (ns, name string, ok bool) {
	ns, name, ok = strings.Cut(key, "/")
	return ns, name, ok && ns != "" && name != ""
}
