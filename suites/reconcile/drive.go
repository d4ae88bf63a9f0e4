package reconcile

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/subjectfile"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// Scenario is one spec's run of the steady-state binding, as another
// suite drives it (exploration runs its changes between a schedule's
// faults): the suite's own scenario, with the steps it takes in order.
// Its methods fail the spec on a harness failure, as the suite's do.
type Scenario struct{ sc *scenario }

// StartScenario records the namespace's resources the objects and the
// controller may write, starts the controller and applies nothing yet.
func StartScenario(ctx context.Context, spec *testenv.Spec, ns string) *Scenario {
	return &Scenario{sc: start(ctx, spec, ns)}
}

// Binding is the subject's steady-state binding.
func (s *Scenario) Binding() *subjectfile.ReconciledObjects { return s.sc.b }

// Target is the controller's replicas.
func (s *Scenario) Target() chaos.Target { return s.sc.target }

// ObjectsResource is the resource (plural, without its group) of the
// first applied object.
func (s *Scenario) ObjectsResource() string { return s.sc.objects[0].gvr.Resource }

// Apply creates the objects, in order, and returns when.
func (s *Scenario) Apply(ctx context.Context) time.Time {
	s.sc.apply(ctx)
	return s.sc.applied
}

// Settle records a phase of fact (judge.FactSteadySettle,
// FactSteadyRecover or one of the caller's) from since and waits until
// the state has been ready for W, or T+W passed; it reports whether it
// settled.
func (s *Scenario) Settle(ctx context.Context, fact judge.PhaseFact, what string, since time.Time) bool {
	return s.sc.settle(ctx, fact, what, since)
}

// SettleWithin is Settle with within in place of T (the binding's
// settleWithin): a bound that allows more, such as the replacement of a
// deleted pod.
func (s *Scenario) SettleWithin(ctx context.Context, fact judge.PhaseFact, what string, since time.Time, within time.Duration) bool {
	return s.sc.settleWithin(ctx, fact, what, since, within)
}

// Change applies one change and returns when it was made.
func (s *Scenario) Change(ctx context.Context, c subjectfile.Change) time.Time {
	return s.sc.change(ctx, c)
}

// Changes applies each change from the from-th on, each once the state
// has settled (settled: whether it has now), and reports whether the last
// phase settled.
func (s *Scenario) Changes(ctx context.Context, settled bool, from int) bool {
	return s.sc.changes(ctx, settled, from)
}

// Run applies the objects and then each change once the state has
// settled, and reports whether the last phase did: a fault-free run.
func (s *Scenario) Run(ctx context.Context) bool { return s.sc.run(ctx) }

// Quiet watches the controller for a write of the run (judge.RunWrite:
// in its namespace or of a cluster-scoped object, Lease and Event writes
// aside) for the binding's quiet window, stopping at the first, and
// records the window quiescent judges (judge.FactSteadyQuiet): the
// window a faulted run is watched for (at most AfterFaultQuiet).
// Call it once the state has settled, with nothing changing.
func (s *Scenario) Quiet(ctx context.Context) { s.sc.quiet(ctx, s.sc.afterQuiet()) }

// DeleteAll deletes the objects left and waits until
// leaves-nothing-behind has held, and the controller has written
// nothing, for W, or its T has passed.
func (s *Scenario) DeleteAll(ctx context.Context) { s.sc.deleteAll(ctx) }

// Reference records the run's end state as of now and returns it, for a
// faulted run to be compared with (CompareWith); settled says whether
// its last phase settled. An end state the evidence cannot give is an
// error.
func (s *Scenario) Reference(ctx context.Context, settled bool) (*judge.EndState, error) {
	s.sc.end(ctx)
	ref, err := judge.EndStateOf(s.sc.spec.Evidence().Snapshot())
	if err != nil {
		return nil, fmt.Errorf("no reference end state from this run: %w", err)
	}
	if !settled && ref.NotReady == "" {
		ref.NotReady = "a phase did not settle within T+W"
	}
	return ref, nil
}

// End records the run's end state as of now (judge.FactSteadyEnd).
func (s *Scenario) End(ctx context.Context) { s.sc.end(ctx) }

// CompareWith records refs, the fault-free runs' end states, and the
// subject's ignore paths for the faulted run's judges
// (judge.FactSteadyReferences, FactSteadyIgnore), and decides readiness
// from then on as the judges do with them (judge.StatusOwed). Call it
// before Apply.
func (s *Scenario) CompareWith(refs []*judge.EndState) { s.sc.compareWith(refs) }

// RecordDisturbed records the writes the harness made around the faults
// (judge.FactSteadyDisturbed): the binding's changes, and the controller's
// own pods that a schedule's pod deletions took (DeletedOwn), whose
// re-creation is owed, not churn.
func (s *Scenario) RecordDisturbed() {
	judge.FactSteadyDisturbed.Set(s.sc.spec, s.sc.disturbances())
}

// OwnedPods are the names of the live pods the objects own now (by
// ownerReferences, transitively, not deleting), those still running
// (not Succeeded or Failed) first, then newest first.
func (s *Scenario) OwnedPods() []string {
	st := s.sc.source().StateAt(time.Now())
	type pod struct {
		name     string
		finished bool
		created  time.Time
	}
	// Every applied object's key, deleted or not (a deleted one is not
	// in the state): a change step running meanwhile only marks an
	// object deleted, it never changes a key.
	var roots []string
	for _, o := range s.sc.objects {
		roots = append(roots, o.key)
	}
	var pods []pod
	for _, k := range judge.Owned(st, roots) {
		o := st[k]
		if judge.SteadyResource(k) != "pods" || slices.Contains(roots, k) || o.GetDeletionTimestamp() != nil {
			continue
		}
		phase, _, _ := unstructured.NestedString(o.Object, "status", "phase")
		pods = append(pods, pod{name: o.GetName(), finished: phase == "Succeeded" || phase == "Failed", created: o.GetCreationTimestamp().Time})
	}
	slices.SortFunc(pods, func(a, b pod) int {
		switch {
		case a.finished != b.finished:
			if a.finished {
				return 1
			}
			return -1
		case !a.created.Equal(b.created):
			return b.created.Compare(a.created)
		}
		return strings.Compare(a.name, b.name)
	})
	var out []string
	for _, p := range pods {
		out = append(out, p.name)
	}
	return out
}

// DeletedOwn records that another party (a schedule's pod deletion)
// deleted the controller's own pods names at at (judge.Disturbance,
// Owned): the controller owes one create of each more than the reference
// runs made, which no-churn does not count as churn; of a pod that had
// finished it owes none, and the objects owe one pod fewer
// (judge.ObjectsOwedAfter). A fault step may call it while the run
// waits.
func (s *Scenario) DeletedOwn(names []string, at time.Time) {
	for _, n := range names {
		s.sc.recordDisturbed(judge.Disturbance{What: fmt.Sprintf("delete Pod %s/%s, the controller's own", s.sc.ns, n), Key: judge.SteadyKey(judge.SteadyHistory("pods"), s.sc.ns, n),
			Resource: "pods", Kind: "Pod", Namespace: s.sc.ns, Name: n, Owned: true, At: at})
	}
}

// Namespace is the run's namespace.
func (s *Scenario) Namespace() string { return s.sc.ns }
