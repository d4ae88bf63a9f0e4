package lostevents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/subjectfile"
	"github.com/steadystate-dev/steadystate/suites/subject"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// Workload is the subject's workload object "web" under test and the
// history of it and its pods: the lost-events specs drive it, and so does
// exploration of a scalable workload.
type Workload struct {
	bind    *subject.Workload
	Target  chaos.Target
	dyn     dynamic.Interface
	ns      string
	history *oracle.History
	pods    *oracle.History
	// converged is the state where the observed replicas equal the
	// desired replicas for the current generation, and so do the live
	// pods counted in the pods history.
	converged judge.Want
	// spec is the spec the workload runs for, whose evidence it records.
	spec *testenv.Spec
}

// StartWorkload runs the subject's controller (the spec is skipped when
// the subject is not a scalable workload) and records the namespace.
func StartWorkload(ctx context.Context, spec *testenv.Spec, ns string) *Workload {
	s := subject.Scalable()
	w := &Workload{bind: s.Workload(), dyn: dynamic.NewForConfigOrDie(testenv.Get().REST), ns: ns, spec: spec}
	w.Target = s.StartWorkloadController(ctx, spec, ns)
	w.history = w.spec.RecordAs(ctx, judge.HistoryWorkload, w.dyn, w.bind.GVR(), ns, "")
	// The workload's pods, not the subject's own when it runs in pods.
	w.pods = w.spec.RecordAs(ctx, judge.HistoryPods, w.dyn, corev1.SchemeGroupVersion.WithResource("pods"), ns, "!"+subject.PodLabel)
	judge.FactWorkload.Set(w.spec, ns+"/web")
	judge.FactReplicasPath.Set(w.spec, w.bind.ReplicasPath())
	judge.FactExpectationTimeout.Set(w.spec, w.bind.ExpectationTimeout())
	w.converged = judge.ReplicasAndPods(ns+"/web", w.bind.ReplicasPath(), w.bind.StatusReplicasPath(), w.bind.ObservedGenerationPath(), judge.HistoryPods)
	judge.FactReplica.Set(w.spec, w.Target.Replicas[0].Identity)
	return w
}

// Create makes the workload with replicas. It fails at once, naming the
// binding, if the subject's field paths do not resolve on the live object.
func (w *Workload) Create(ctx context.Context, replicas int64) time.Time {
	ns := w.ns
	_, err := w.dyn.Resource(w.bind.GVR()).Namespace(ns).Create(ctx, w.bind.New(ns, "web", replicas), metav1.CreateOptions{})
	created := time.Now()
	Expect(err).NotTo(HaveOccurred())
	// Bindings that never resolve fail the spec with the subject file's
	// field, not as a controller that did not converge, and the specs
	// after it are not run: each would fail the same way.
	var bindErr error
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		obj := w.history.StateAt(time.Now())[ns+"/web"]
		if obj == nil {
			bindErr = fmt.Errorf("%s %s/web was never recorded", w.bind.Kind(), ns)
			return false, nil
		}
		_, _, _, bindErr = w.bind.Replicas(obj)
		return bindErr == nil, nil
	})
	if err != nil {
		if fieldErr := (*subjectfile.Error)(nil); errors.As(bindErr, &fieldErr) && ctx.Err() == nil {
			subject.Unresolved(subject.ScalableBinding, CurrentSpecReport().FullText(), bindErr)
		}
		Fail(fmt.Sprintf("within 30s: %v", bindErr))
	}
	return created
}

// Until is the bound of converging within c.
func (w *Workload) Until(c oracle.Convergence) judge.Bound {
	return judge.Bound{Convergence: c, History: judge.HistoryWorkload, Want: w.converged}
}

// ExpectationTimeout is how long the subject may keep unsatisfied scale
// expectations before it notices a lost event on its own.
func (w *Workload) ExpectationTimeout() time.Duration { return w.bind.ExpectationTimeout() }

// ReplaceWithin is how long the subject may take to replace deleted pods
// (its binding's replaceWithin).
func (w *Workload) ReplaceWithin() time.Duration { return w.bind.ReplaceWithin() }

// Scale sets the desired replicas and returns when the change was accepted.
func (w *Workload) Scale(ctx context.Context, n int64) time.Time {
	patch, err := json.Marshal(w.bind.ReplicasPatch(n))
	Expect(err).NotTo(HaveOccurred())
	_, err = w.dyn.Resource(w.bind.GVR()).Namespace(w.ns).Patch(ctx, "web", types.MergePatchType, patch, metav1.PatchOptions{})
	Expect(err).NotTo(HaveOccurred())
	return time.Now()
}

// LivePods lists the names of the pods that exist at the end of history.
func (w *Workload) LivePods() []string {
	var names []string
	for key, obj := range w.pods.StateAt(time.Now()) {
		if obj.GetDeletionTimestamp() == nil {
			names = append(names, key)
		}
	}
	return names
}

// Resource is the workload's resource (replicasets, clonesets, ...).
func (w *Workload) Resource() string { return w.bind.GVR().Resource }

// Converged reports whether the recorded workload now shows its desired
// replicas observed, for its current generation, and as many live pods.
func (w *Workload) Converged() bool {
	m, err := w.converged.Match()
	if err != nil {
		return false
	}
	ok, _ := m(oracle.Join(w.history, map[string]*oracle.History{judge.HistoryPods: w.pods}).StateAt(time.Now()))
	return ok
}

// NewestPod is the live pod created last, "" when none lives: one the
// API server has and the recorded history has not seen yet (it lags by
// milliseconds), or else the one the history saw created last (by the
// store's revision).
func (w *Workload) NewestPod(ctx context.Context) string {
	list, err := w.dyn.Resource(corev1.SchemeGroupVersion.WithResource("pods")).Namespace(w.ns).List(ctx, metav1.ListOptions{LabelSelector: "!" + subject.PodLabel})
	if err != nil {
		return ""
	}
	created := map[string]int64{}
	for _, e := range w.pods.Events() {
		if e.Type == "ADDED" {
			created[e.Key] = e.Revision()
		}
	}
	newest, at := "", int64(-1)
	for _, p := range list.Items {
		rev, seen := created[w.ns+"/"+p.GetName()]
		if !seen {
			rev = math.MaxInt64
		}
		if p.GetDeletionTimestamp() == nil && rev > at {
			newest, at = p.GetName(), rev
		}
	}
	return newest
}
