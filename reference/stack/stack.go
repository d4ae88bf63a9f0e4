package stack

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
)

// The seeded bugs (doc.go says what each does and what it must break).
const (
	BugUnownedChildStaleAfterRefusal  = "unowned-child-stale-after-refusal"
	BugClusterChildRecreatedOnStart   = "cluster-child-recreated-on-start"
	BugLeakInOtherNamespace           = "leak-in-other-namespace"
	BugLeakByApply                    = "leak-by-apply"
	BugChurnByDeleteCollection        = "churn-by-deletecollection"
	BugResurrectOnDelete              = "resurrect-on-delete"
	BugNeverAvailable                 = "never-available"
	BugSyncedFalse                    = "synced-false"
	BugDegradedAlways                 = "degraded-always"
	BugDegradedAfterRestart           = "degraded-after-restart"
	BugDropFieldAfterRefusal          = "drop-field-after-refusal"
	BugStatusRewriteEvery30s          = "status-rewrite-every-30s"
	BugHotLoopAfterRestart            = "hot-loop-after-restart"
	BugHangAfterSettling              = "hang-after-settling"
	BugDanglingUIDAfterRestart        = "dangling-uid-after-restart"
	BugStrayFinalizerAfterRestart     = "stray-finalizer-after-restart"
	BugOwnerNotControllerAfterRestart = "owner-not-controller-after-restart"
	BugSecretNotResyncedAfterRestart  = "secret-not-resynced-after-restart"
	BugRecreateChildrenOnStart        = "recreate-children-on-start"
	BugPanicEveryReconcile            = "panic-every-reconcile"
	BugSecondFinalizerWhileDeleting   = "second-finalizer-while-deleting"
	BugSlowAfterRefusal               = "slow-after-refusal"
	BugWatchNeverBack                 = "watch-never-back"
	BugLeakClusterChild               = "leak-cluster-child"
	BugFinalizerNeverReleased         = "finalizer-never-released"
	BugExtraChildAfterRefusal         = "extra-child-after-refusal"
	BugStatusFlaps                    = "status-flaps"
	BugStaleTierStatusAfterRestart    = "stale-tier-status-after-restart"
	BugLedgerRecreatedOnStart         = "ledger-recreated-on-start"
	BugOrphanMirrorOnRelist           = "orphan-mirror-on-relist"
	BugChurnInOtherNamespace          = "churn-in-other-namespace"
	BugClusterChildStaleAfterRestart  = "cluster-child-stale-after-restart"
	BugSlotNameRewrittenAfterRestart  = "slot-name-rewritten-after-restart"
)

// Names the controller gives and reads.
const (
	// Finalizer is the Stack's own: held until the children without an
	// ownerReference are gone.
	Finalizer = "stack.reference.steadystate.dev/cleanup"
	// HoldFinalizer is what stray-finalizer-after-restart puts on the
	// configuration ConfigMap.
	HoldFinalizer = "stack.reference.steadystate.dev/hold"
	// AuditFinalizer is what second-finalizer-while-deleting tries to add
	// to a Stack being deleted.
	AuditFinalizer = "stack.reference.steadystate.dev/audit"
	// LabelName labels the Stack's ConfigMaps in its namespace with its
	// name: the configuration, the mirror and the ledger.
	LabelName = "stack.reference.steadystate.dev/name"
	// AnnotationGeneration is the Stack generation the mirror was applied
	// from (orphan-mirror-on-relist only).
	AnnotationGeneration = "stack.reference.steadystate.dev/generation"
	// FieldOwner is the field manager of the server-side applies.
	FieldOwner = "stack"
	// AuditNamespace holds the audit records, whatever namespace the
	// controller watches.
	AuditNamespace = "default"
)

// Condition types and reasons beside v1alpha1's.
const (
	TypeAvailable                    = "Available"
	TypeDegraded                     = "Degraded"
	ReasonMinimumReplicasUnavailable = "MinimumReplicasUnavailable"
	ReasonSecretMissing              = "SecretMissing"
	ReasonRestarted                  = "Restarted"
)

// The timings of the reconciler and of its bugs.
const (
	requeue         = time.Second
	waitGone        = 200 * time.Millisecond
	hangAfter       = 25 * time.Second
	heartbeat       = 30 * time.Second
	flapCycle       = 3 * time.Second
	flapReady       = 250 * time.Millisecond
	slowFor         = 60 * time.Second
	resurrectAfter  = 50 * time.Millisecond
	orphanPoll      = 250 * time.Millisecond
	orphanGrace     = 500 * time.Millisecond
	hotLoopInterval = time.Second
)

// ConfigName names a Stack's ConfigMap.
func ConfigName(s *refv1.Stack) string { return s.Name + "-config" }

// MirrorName names the Stack's unowned mirror ConfigMap.
func MirrorName(s *refv1.Stack) string { return s.Name + "-mirror" }

// CredsName names the Stack's Secret.
func CredsName(s *refv1.Stack) string { return s.Name + "-creds" }

// SlotName names the Stack's cluster-scoped child.
func SlotName(s *refv1.Stack) string { return s.Namespace + "-" + s.Name }

// AuditName names the Stack's record in AuditNamespace.
func AuditName(s *refv1.Stack) string { return "stack-" + s.Namespace + "-" + s.Name }

// LedgerName is <name>-<the first 5 hex digits of the sha256 of its uid>:
// a name that differs in every run.
func LedgerName(s *refv1.Stack) string {
	sum := sha256.Sum256([]byte(s.UID))
	return s.Name + "-" + hex.EncodeToString(sum[:])[:5]
}

// +kubebuilder:rbac:groups=reference.steadystate.dev,resources=stacks,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=reference.steadystate.dev,resources=stacks/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=reference.steadystate.dev,resources=slots,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;update;patch;delete;deletecollection
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=selfsubjectaccessreviews,verbs=create

// Reconciler gives each Stack its children and deletes those the garbage
// collector does not before it releases its finalizer.
type Reconciler struct {
	client.Client
	// APIReader reads from the API server, not the cache: the audit
	// records (in a namespace the cache may not hold), what the cleanup
	// waits to be gone, and the Stacks of watch-never-back (no informer)
	// and orphan-mirror-on-relist (read fresh but in its orphan check).
	APIReader client.Reader
	Bug       string
	// Namespace is the one namespace reconciled, "" for all: where
	// watch-never-back's own watch of Stacks looks, and which Slots map to
	// a Stack.
	Namespace string

	mu        sync.Mutex
	memos     map[types.NamespacedName]*memo
	lastWrite time.Time
}

// memo is what the process remembers of one Stack.
type memo struct {
	// seen: a pass of this process got the Stack; restarted: the first
	// found it carrying the finalizer already, so another process ran
	// before; restartDone: the one-time work after a restart was done.
	seen, restarted, restartDone bool
	// mark is set by a Stack update event whose generation changed and
	// consumed at the start of the next pass.
	mark bool
	// refusedAt is the last write of a pass answered 429 or 500;
	// dropToken and extra are set with it.
	refusedAt        time.Time
	dropToken, extra bool
	stampedAt        time.Time
	settledAt        time.Time
	suspectSince     time.Time
}

var _ reconcile.Reconciler = (*Reconciler)(nil)

// New is the reconciler for mgr with bug ("" for the correct mode), for
// namespace ns ("" for all).
func New(mgr ctrl.Manager, bug, ns string) *Reconciler {
	r := &Reconciler{APIReader: mgr.GetAPIReader(), Bug: bug, Namespace: ns, lastWrite: time.Now()}
	r.Client = recording{Client: mgr.GetClient(), wrote: r.wrote}
	return r
}

// SetupWithManager watches Stacks (or, for watch-never-back, a watch
// of its own), the ConfigMaps and Secrets they own, their ConfigMaps by
// label (the mirror has no owner), the Secrets they copy, by name, and
// their Slots.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	b := ctrl.NewControllerManagedBy(mgr).Named("stack")
	if r.Bug == BugWatchNeverBack {
		c, err := client.NewWithWatch(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()})
		if err != nil {
			return err
		}
		events := make(chan event.GenericEvent)
		if err := mgr.Add(&stackWatch{c: c, ns: r.Namespace, events: events}); err != nil {
			return err
		}
		b = b.WatchesRawSource(source.Channel[client.Object](events, &handler.EnqueueRequestForObject{}))
	} else {
		b = b.For(&refv1.Stack{}, builder.WithPredicates(predicate.Funcs{UpdateFunc: r.noteGeneration}))
	}
	// What the Stacks own, as Owns would watch it (Owns needs For, which
	// watch-never-back has not).
	owner := handler.EnqueueRequestForOwner(mgr.GetScheme(), mgr.GetRESTMapper(), &refv1.Stack{}, handler.OnlyControllerOwner())
	return b.
		Watches(&corev1.ConfigMap{}, owner).
		Watches(&corev1.Secret{}, owner).
		Watches(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(byLabel)).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.stacksCopying)).
		Watches(&refv1.Slot{}, handler.EnqueueRequestsFromMapFunc(r.slotStack)).
		Complete(r)
}

// noteGeneration marks a Stack whose update changed its generation (a
// change of spec): unowned-child-stale-after-refusal syncs the mirror
// only under the mark.
func (r *Reconciler) noteGeneration(e event.UpdateEvent) bool {
	if e.ObjectOld != nil && e.ObjectNew != nil && e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration() {
		r.mu.Lock()
		r.memoLocked(client.ObjectKeyFromObject(e.ObjectNew)).mark = true
		r.mu.Unlock()
	}
	return true
}

// byLabel maps a ConfigMap labelled with a Stack's name to that Stack.
func byLabel(_ context.Context, o client.Object) []reconcile.Request {
	name := o.GetLabels()[LabelName]
	if name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: name}}}
}

// stacksCopying maps a Secret to the Stacks that copy it.
func (r *Reconciler) stacksCopying(ctx context.Context, o client.Object) []reconcile.Request {
	var list refv1.StackList
	if err := r.stacks().List(ctx, &list, client.InNamespace(o.GetNamespace())); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "list Stacks for a Secret", "secret", o.GetName())
		return nil
	}
	var out []reconcile.Request
	for _, s := range list.Items {
		if s.Spec.SecretName == o.GetName() {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&s)})
		}
	}
	return out
}

// slotStack maps a Slot to its Stack, one of the namespace reconciled.
func (r *Reconciler) slotStack(_ context.Context, o client.Object) []reconcile.Request {
	slot, ok := o.(*refv1.Slot)
	if !ok {
		return nil
	}
	ns, name, ok := cutKey(slot.Spec.Stack)
	if !ok || (r.Namespace != "" && ns != r.Namespace) {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}}
}

// stacks is where Stacks are read: the cache, but for the bugs that read
// them fresh.
func (r *Reconciler) stacks() client.Reader {
	if r.Bug == BugWatchNeverBack || r.Bug == BugOrphanMirrorOnRelist {
		return r.APIReader
	}
	return r.Client
}

func (r *Reconciler) memoLocked(key types.NamespacedName) *memo {
	if r.memos == nil {
		r.memos = map[types.NamespacedName]*memo{}
	}
	m := r.memos[key]
	if m == nil {
		m = &memo{}
		r.memos[key] = m
	}
	return m
}

// wrote notes a write of this process (hang-after-settling's clock).
func (r *Reconciler) wrote() {
	r.mu.Lock()
	r.lastWrite = time.Now()
	r.mu.Unlock()
}

func (r *Reconciler) idleFor() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return time.Since(r.lastWrite)
}

// Reconcile drives one Stack: its cleanup when it is being deleted, else
// its finalizer, its children and its status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, err error) {
	log := ctrl.LoggerFrom(ctx)
	if r.Bug == BugPanicEveryReconcile {
		// The configuration looked up before it was ever made: a nil
		// pointer on every pass (controller-runtime recovers it).
		known := map[types.NamespacedName]*corev1.ConfigMap{}
		log.Info("reading the configuration", "tier", known[req.NamespacedName].Data["tier"])
	}
	if r.Bug == BugHangAfterSettling {
		if idle := r.idleFor(); idle >= hangAfter {
			// A lock taken once the controller went idle and never
			// released: this pass, and every later one, waits for good.
			log.Info("nothing written for a while; this pass blocks", "idle", idle.Round(time.Second).String())
			<-ctx.Done()
			return ctrl.Result{}, nil
		}
	}
	key := req.NamespacedName
	r.mu.Lock()
	m := r.memoLocked(key)
	mark := m.mark
	m.mark = false
	r.mu.Unlock()
	defer func() {
		if refused(err) {
			r.mu.Lock()
			m.refusedAt, m.dropToken, m.extra = time.Now(), true, true
			r.mu.Unlock()
		}
	}()

	var s refv1.Stack
	if err := r.stacks().Get(ctx, key, &s); err != nil {
		if apierrors.IsNotFound(err) {
			r.mu.Lock()
			delete(r.memos, key)
			r.mu.Unlock()
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	r.mu.Lock()
	if !m.seen {
		m.seen = true
		m.restarted = controllerutil.ContainsFinalizer(&s, Finalizer)
		if m.restarted {
			log.Info("the Stack carries the finalizer already: another process ran before this one", "stack", key.String())
		}
	}
	restarted, restartDone := m.restarted, m.restartDone
	r.mu.Unlock()

	if !s.DeletionTimestamp.IsZero() {
		return r.finalize(ctx, &s)
	}
	if r.Bug == BugOrphanMirrorOnRelist {
		if wait, err := r.orphanMirror(ctx, &s, m); err != nil || wait > 0 {
			return ctrl.Result{RequeueAfter: wait}, err
		}
	}
	if !controllerutil.ContainsFinalizer(&s, Finalizer) {
		controllerutil.AddFinalizer(&s, Finalizer)
		if err := r.Update(ctx, &s); err != nil {
			return ctrl.Result{}, err
		}
	}
	if restarted && !restartDone {
		r.mu.Lock()
		m.restartDone = true
		r.mu.Unlock()
		if err := r.afterRestart(ctx, &s); err != nil {
			return ctrl.Result{}, err
		}
	}
	got, err := r.children(ctx, &s, m, mark, restarted)
	if err != nil {
		return ctrl.Result{}, err
	}
	res, err = r.status(ctx, &s, m, got, restarted)
	if err == nil && r.Bug == BugOrphanMirrorOnRelist && (res.RequeueAfter == 0 || res.RequeueAfter > orphanPoll) {
		// A poll, as Crossplane's controllers have one.
		res.RequeueAfter = orphanPoll
	}
	return res, err
}

// refused reports whether err is a write answered 429 or 500: a refusal a
// correct controller retries (a 409 it meets by chance is not one).
func refused(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	code := status.Status().Code
	return code == http.StatusTooManyRequests || code == http.StatusInternalServerError
}
