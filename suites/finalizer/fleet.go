package finalizer

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/suites/subject"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// Fleet is the subject's movable objects of one namespace and the two
// clusters they may live on: the suite's (the source) and the move
// target, the subject's controller started on each, the objects' history
// recorded on both (and their cleanups, where the binding says they
// show). The move spec drives it, and so does exploration of a movable
// resource.
type Fleet struct {
	m  subject.MovableResource
	r  resource
	ns string
	// Names are the objects, running on the source once started.
	Names []string
	// Source is the source cluster's controller, for faults.
	Source           chaos.Target
	dyn, tgtDyn      dynamic.Interface
	kubeconfig       string // the source's
	tgtKubeconfig    string
	sourceH, targetH *oracle.History
	moved            time.Time
	// moveFailed is the mover's failure, if it failed.
	moveFailed error
	// spec is the spec the fleet runs for, whose evidence it records.
	spec *testenv.Spec
}

// StartFleet starts the subject's controller on both clusters for
// namespace ns (the spec is skipped when the subject is not a movable
// resource, or when the provider cannot make a second cluster), records
// the objects on both, and creates names on the source, running (the
// assumption finalizer/ran-before) with the binding's status reported.
func StartFleet(ctx context.Context, spec *testenv.Spec, ns string, names ...string) *Fleet {
	m := subject.Movable()
	f := &Fleet{m: m, r: bound(m), ns: ns, Names: names, spec: spec}
	f.r.facts(spec)
	tgtREST := f.target(ctx)
	f.Source = m.StartResourceController(ctx, spec, nil, ns)
	m.StartResourceController(ctx, spec, tgtREST, ns)
	env := testenv.Get()
	f.kubeconfig = env.Kubeconfig
	f.dyn, f.tgtDyn = dynamic.NewForConfigOrDie(env.REST), dynamic.NewForConfigOrDie(tgtREST)
	const field = "capabilities.movableResource.resource"
	for _, served := range []error{
		testenv.Served(ctx, f.dyn, f.r.gvr, ns, field, 30*time.Second),
		testenv.Served(ctx, f.tgtDyn, f.r.gvr, ns, field+" (on the move's target)", 30*time.Second),
	} {
		if served != nil {
			Fail(served.Error())
		}
	}
	f.sourceH, f.targetH = f.spec.RecordAs(ctx, sourceHistory, f.dyn, f.r.gvr, ns, ""), f.spec.RecordAs(ctx, targetHistory, f.tgtDyn, f.r.gvr, ns, "")
	if se := f.r.SideEffects; se != nil {
		gv, err := schema.ParseGroupVersion(se.APIVersion)
		Expect(err).NotTo(HaveOccurred(), "capabilities.movableResource.sideEffects.apiVersion")
		f.spec.RecordAs(ctx, "source/cleanups", f.dyn, gv.WithResource(se.Resource), ns, se.Selector)
		f.spec.RecordAs(ctx, "target/cleanups", f.tgtDyn, gv.WithResource(se.Resource), ns, se.Selector)
		judge.FactCleanupUIDLabel.Set(f.spec, se.UIDLabel)
	}
	judge.FactClusters.Set(f.spec, judge.Names{"source", "target"})
	created := time.Now()
	for _, n := range names {
		f.r.create(ctx, f.dyn, ns, n)
	}
	if _, err := f.spec.Await(ctx, catalog.FinRanBefore, until(sourceHistory, testenv.Settle(created), f.r.running(ns, names...))); err == nil {
		Expect(f.r.report(ctx, f.dyn, ns, names...)).To(Succeed())
	}
	return f
}

// target starts the move target (once per process) and makes the
// namespace there, deleted when the spec ends.
func (f *Fleet) target(ctx context.Context) (cfg *rest.Config) {
	path, cfg := moveTarget(ctx, f.m)
	f.tgtKubeconfig = path
	kube := kubernetes.NewForConfigOrDie(cfg)
	_, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: f.ns}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx SpecContext) {
		Expect(kube.CoreV1().Namespaces().Delete(ctx, f.ns, metav1.DeleteOptions{})).To(Or(Succeed(), Satisfy(apierrors.IsNotFound)), "delete namespace %s", f.ns)
	})
	return cfg
}

// Move moves the namespace's objects to the target and returns when the
// mover exited; a mover that failed is the fact the premise
// finalizer/mover-finished reads (and P3, when the API server refused it
// the controller's finalizer).
func (f *Fleet) Move(ctx context.Context) time.Time {
	out, err := f.m.Move(ctx, f.spec, f.kubeconfig, f.tgtKubeconfig, f.ns)
	f.moved = time.Now()
	if err != nil {
		f.moveFailed = moverErr("move", out, err)
		judge.FactMoverError.Set(f.spec, f.moveFailed.Error())
	}
	judge.FactMoved.Set(f.spec, f.moved)
	return f.moved
}

// Moved reports whether Move ran.
func (f *Fleet) Moved() bool { return !f.moved.IsZero() }

// MovedAt is when Move finished, zero before.
func (f *Fleet) MovedAt() time.Time { return f.moved }

// Resource is the objects' resource.
func (f *Fleet) Resource() string { return f.r.Resource }

// MoveChecks judge a move: the mover ran (the premise), within 30s of
// since every object is gone from the source (P1), and the objects run on
// the target within T of since (both not evaluated when the mover
// stopped on the API server's finalizer refusal: P3's evidence).
func (f *Fleet) MoveChecks(ctx context.Context, since time.Time) []oracle.Check {
	return []oracle.Check{
		f.spec.Judged(catalog.FinMoverFinished),
		f.spec.Converges(ctx, catalog.FinP1, func() judge.Bound {
			return until(sourceHistory, testenv.Within(since, 30*time.Second), judge.Empty())
		}, "gone"),
		f.spec.Converges(ctx, catalog.FinRunsAfterMove, func() judge.Bound {
			return until(targetHistory, testenv.Settle(since), f.r.running(f.ns, f.Names...))
		}, ""),
	}
}

// SafetyChecks judge the whole history of both clusters: no object stays
// deleting, paused and finalized past P2's bound (waiting out one that
// may still go), the API server never refused the controller's finalizer
// on an object being deleted (P3), and, where the binding says where
// cleanups show, no cleanup ran for a paused object (P4).
func (f *Fleet) SafetyChecks(ctx context.Context) []oracle.Check {
	checks := []oracle.Check{
		{Property: catalog.FinP2, Run: func() error {
			if err := untilNoneOpen(ctx, f.r, f.sourceH, f.targetH); err != nil {
				return fmt.Errorf("%w: %w", oracle.ErrNotEvaluated, err)
			}
			return f.spec.Judged(catalog.FinP2).Run()
		}},
		f.spec.Judged(catalog.FinP3),
	}
	if f.r.SideEffects != nil {
		return append(checks, f.spec.Judged(catalog.FinP4))
	}
	f.spec.NotBound(catalog.FinP4, "the subject binds no capabilities.movableResource.sideEffects")
	return checks
}

// DeleteHeld deletes object name while another party's finalizer holds
// it (removed when the spec ends) and returns when. The controller must
// let go of its own finalizer and never add it back (P3).
func (f *Fleet) DeleteHeld(ctx context.Context, name string) (time.Time, error) {
	objects := f.dyn.Resource(f.r.gvr).Namespace(f.ns)
	if err := testenv.EditFinalizers(ctx, objects, name, testenv.WithFinalizer(foreign)); err != nil {
		return time.Time{}, fmt.Errorf("hold %s with finalizer %s: %w", name, foreign, err)
	}
	DeferCleanup(func(ctx SpecContext) error { // let the namespace go
		if err := testenv.EditFinalizers(ctx, objects, name, testenv.WithoutFinalizer(foreign)); !apierrors.IsNotFound(err) {
			return err
		}
		return nil
	})
	if err := objects.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return time.Time{}, err
	}
	return time.Now(), nil
}

// ReleasedChecks judge the deletion of held object name (DeleteHeld) from
// since (releasedChecks), on the source controller's proxy log.
func (f *Fleet) ReleasedChecks(ctx context.Context, name string, since time.Time) []oracle.Check {
	return releasedChecks(ctx, f.spec, f.r, f.Source.Replicas[0].Proxy, f.ns, name, since)
}

// releasedChecks judge a held object's deletion: within 15s of since the
// controller removes its finalizer from ns/name, and the API server
// answers none of its requests (on proxy p's log) 422 in the 2s after
// (P3).
func releasedChecks(ctx context.Context, spec *testenv.Spec, r resource, p proxy.Controller, ns, name string, since time.Time) []oracle.Check {
	var released time.Time
	return []oracle.Check{
		{Property: catalog.FinReleased, Run: func() error {
			res, _ := spec.Await(ctx, catalog.FinReleased, until(sourceHistory, testenv.Within(since, 15*time.Second), judge.Released(ns+"/"+name, r.Finalizer)))
			released = res.At
			return spec.Judged(catalog.FinReleased).Run()
		}},
		{Property: catalog.FinP3, Run: func() error {
			if err := quietFor(ctx, p, r.Resource, released, 2*time.Second); err != nil {
				return err
			}
			return spec.Judged(catalog.FinP3).Run()
		}},
	}
}
