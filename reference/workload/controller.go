package workload

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
)

// The seeded bugs.
const (
	BugExpectationsNeverExpire = "expectations-never-expire"
	BugNoExpectations          = "no-expectations"
)

// LabelWorkload marks the pods of a workload.
const LabelWorkload = "reference.steadystate.dev/workload"

// +kubebuilder:rbac:groups=reference.steadystate.dev,resources=workloads,verbs=get;list;watch
// +kubebuilder:rbac:groups=reference.steadystate.dev,resources=workloads/status,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;create;delete

// Reconciler scales a Workload's pods.
type Reconciler struct {
	client.Client
	Expectations *Expectations
	// Timeout is how long expectations may stay unsatisfied (upstream: 5m).
	Timeout time.Duration
	Bug     string
}

var _ reconcile.Reconciler = (*Reconciler)(nil)

// SetupWithManager registers the controller: Workloads, and their pods
// through a handler that also observes expectations.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&refv1.Workload{}).
		Watches(&corev1.Pod{}, &podHandler{exp: r.Expectations}).
		Complete(r)
}

// Reconcile brings the pod count to spec.replicas.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	logger := log.FromContext(ctx)
	key := req.String()
	var w refv1.Workload
	if err := r.Get(ctx, req.NamespacedName, &w); err != nil {
		if apierrors.IsNotFound(err) {
			r.Expectations.Delete(key)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}

	if r.Bug != BugNoExpectations {
		if ok, unsatisfiedFor, dirty := r.Expectations.Satisfied(key); !ok {
			if unsatisfiedFor < r.Timeout {
				logger.V(1).Info("Not satisfied scale", "dirtyPods", dirty)
				return ctrl.Result{RequeueAfter: r.Timeout - unsatisfiedFor}, nil
			}
			if r.Bug == BugExpectationsNeverExpire {
				// openkruise/kruise before #1829: log and give up, forever.
				logger.Info("Expectation unsatisfied overtime", "scaleDirtyPods", dirty, "overtime", unsatisfiedFor.String())
				return ctrl.Result{}, nil
			}
			logger.Info("Expectation unsatisfied overtime, clearing it", "scaleDirtyPods", dirty, "overtime", unsatisfiedFor.String())
			r.Expectations.Delete(key)
		}
	}

	active, err := r.activePods(ctx, &w)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.scale(ctx, &w, active); err != nil {
		return ctrl.Result{}, err
	}
	if w.Status.Replicas != int32(len(active)) || w.Status.ObservedGeneration != w.Generation {
		w.Status.Replicas = int32(len(active))
		w.Status.ObservedGeneration = w.Generation
		if err := r.Status().Update(ctx, &w); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, nil
}

// activePods lists the workload's pods that are not being deleted, from
// the cache, sorted by name.
func (r *Reconciler) activePods(ctx context.Context, w *refv1.Workload) ([]corev1.Pod, error) {
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(w.Namespace), client.MatchingLabels{LabelWorkload: w.Name}); err != nil {
		return nil, err
	}
	var active []corev1.Pod
	for _, p := range pods.Items {
		if ref := metav1.GetControllerOf(&p); p.DeletionTimestamp == nil && ref != nil && ref.UID == w.UID {
			active = append(active, p)
		}
	}
	slices.SortFunc(active, func(a, b corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	return active, nil
}

func (r *Reconciler) scale(ctx context.Context, w *refv1.Workload, active []corev1.Pod) error {
	key := types.NamespacedName{Namespace: w.Namespace, Name: w.Name}.String()
	expect := r.Bug != BugNoExpectations
	for diff := int(w.Spec.Replicas) - len(active); diff > 0; diff-- {
		pod := r.newPod(w)
		if expect {
			r.Expectations.ExpectCreate(key, pod.Name)
		}
		if err := r.Create(ctx, pod); err != nil {
			r.Expectations.ObserveCreate(key, pod.Name)
			return fmt.Errorf("create pod %s: %w", pod.Name, err)
		}
		log.FromContext(ctx).Info("created pod", "pod", pod.Name)
	}
	for i := len(active) - 1; i >= int(w.Spec.Replicas); i-- {
		pod := &active[i]
		if expect {
			r.Expectations.ExpectDelete(key, pod.Name)
		}
		if err := r.Delete(ctx, pod); err != nil && !apierrors.IsNotFound(err) {
			r.Expectations.ObserveDelete(key, pod.Name)
			return fmt.Errorf("delete pod %s: %w", pod.Name, err)
		}
		log.FromContext(ctx).Info("deleted pod", "pod", pod.Name)
	}
	return nil
}

func (r *Reconciler) newPod(w *refv1.Workload) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: *w.Spec.Template.ObjectMeta.DeepCopy(),
		Spec:       *w.Spec.Template.Spec.DeepCopy(),
	}
	pod.Namespace = w.Namespace
	pod.Name = w.Name + "-" + utilrand.String(5)
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[LabelWorkload] = w.Name
	_ = controllerutil.SetControllerReference(w, pod, r.Scheme())
	return pod
}

// podHandler observes the expectations of a pod's workload, then enqueues
// the workload, as CloneSet's pod event handler does.
type podHandler struct{ exp *Expectations }

func owner(obj client.Object) (reconcile.Request, bool) {
	ref := metav1.GetControllerOf(obj)
	if ref == nil || ref.Kind != "Workload" || ref.APIVersion != refv1.GroupVersion.String() {
		return reconcile.Request{}, false
	}
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: ref.Name}}, true
}

func (h *podHandler) Create(_ context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	if req, ok := owner(e.Object); ok {
		h.exp.ObserveCreate(req.String(), e.Object.GetName())
		q.Add(req)
	}
}

func (h *podHandler) Update(_ context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	if req, ok := owner(e.ObjectNew); ok {
		if e.ObjectNew.GetDeletionTimestamp() != nil {
			h.exp.ObserveDelete(req.String(), e.ObjectNew.GetName())
		}
		q.Add(req)
	}
}

func (h *podHandler) Delete(_ context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	if req, ok := owner(e.Object); ok {
		h.exp.ObserveDelete(req.String(), e.Object.GetName())
		q.Add(req)
	}
}

func (h *podHandler) Generic(_ context.Context, e event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	if req, ok := owner(e.Object); ok {
		q.Add(req)
	}
}

var _ handler.EventHandler = (*podHandler)(nil)
