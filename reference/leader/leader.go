package leader

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// The seeded bugs.
const (
	BugStartOnShutdown = "start-leader-runnables-on-shutdown"
	BugIgnoreLostLease = "ignore-lost-lease"
)

// Labels and names of what the leader writes.
const (
	LabelMarker   = "reference.steadystate.dev/leader-marker"
	LabelWork     = "reference.steadystate.dev/leader-work"
	AnnotHandled  = "reference.steadystate.dev/handled-by"
	HeartbeatName = "leader-heartbeat"
)

// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;update;patch

// Work is the leader-only runnable: a marker on start, then a heartbeat.
type Work struct {
	Client    client.Client
	Identity  string
	Namespace string
	Heartbeat time.Duration
	writes    atomic.Int64
}

var _ manager.LeaderElectionRunnable = (*Work)(nil)

// NeedLeaderElection makes the manager run Work only on the leader.
func (w *Work) NeedLeaderElection() bool { return true }

// Start writes the marker, then heartbeats until ctx ends.
func (w *Work) Start(ctx context.Context) error {
	w.Mark(ctx)
	tick := time.NewTicker(w.Heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			w.beat(ctx)
		}
	}
}

// Mark writes a marker ConfigMap tagged with the identity: the black-box
// signal that leader-only work started on this replica.
func (w *Work) Mark(ctx context.Context) {
	n := w.writes.Add(1)
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name:      fmt.Sprintf("leader-marker-%s-%d-%d", w.Identity, time.Now().UnixNano(), n),
			Namespace: w.Namespace,
			Labels:    map[string]string{LabelMarker: w.Identity},
		},
		Data: map[string]string{"identity": w.Identity, "at": time.Now().UTC().Format(time.RFC3339Nano)},
	}
	if err := w.Client.Create(ctx, cm); err != nil {
		log.FromContext(ctx).Error(err, "write leader marker")
		return
	}
	log.FromContext(ctx).Info("leader-only work started", "identity", w.Identity, "marker", cm.Name)
}

// beat creates or updates the heartbeat ConfigMap with this identity.
func (w *Work) beat(ctx context.Context) {
	var cm corev1.ConfigMap
	err := w.Client.Get(ctx, client.ObjectKey{Namespace: w.Namespace, Name: HeartbeatName}, &cm)
	data := map[string]string{"holder": w.Identity, "beat": strconv.FormatInt(w.writes.Add(1), 10)}
	switch {
	case apierrors.IsNotFound(err):
		cm = corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: HeartbeatName, Namespace: w.Namespace}, Data: data}
		err = w.Client.Create(ctx, &cm)
	case err == nil:
		cm.Data = data
		err = w.Client.Update(ctx, &cm)
	}
	if err != nil && ctx.Err() == nil {
		log.FromContext(ctx).Info("heartbeat failed", "error", err.Error())
	}
}

// Reconciler is the leader-only reconciler: it stamps ConfigMaps labelled
// for leader work with the identity that handled them.
type Reconciler struct {
	client.Client
	Identity string
}

var _ reconcile.Reconciler = (*Reconciler)(nil)

// SetupWithManager watches ConfigMaps labelled for leader work.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	labelled, err := predicate.LabelSelectorPredicate(metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: LabelWork, Operator: metav1.LabelSelectorOpExists}}})
	if err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).Named("leader-work").
		For(&corev1.ConfigMap{}, builder.WithPredicates(labelled)).
		Complete(r)
}

// Reconcile stamps the ConfigMap.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var cm corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &cm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if cm.Annotations[AnnotHandled] == r.Identity {
		return ctrl.Result{}, nil
	}
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[AnnotHandled] = r.Identity
	return ctrl.Result{}, r.Update(ctx, &cm)
}
