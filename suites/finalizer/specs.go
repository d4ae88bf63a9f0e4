package finalizer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/subjectfile"
	"github.com/steadystate-dev/steadystate/suites/subject"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

const foreign = "infrastructure.steadystate.dev/hold"

// resource is the subject's movable resource as the suite uses it.
type resource struct {
	*subjectfile.MovableResource
	gvr schema.GroupVersionResource
}

func bound(m subject.MovableResource) resource {
	b := m.Movable()
	gv, err := schema.ParseGroupVersion(b.Template["apiVersion"].(string))
	Expect(err).NotTo(HaveOccurred(), "capabilities.movableResource.template.apiVersion")
	return resource{MovableResource: b, gvr: gv.WithResource(b.Resource)}
}

func (r resource) create(ctx context.Context, dyn dynamic.Interface, ns, name string, finalizers ...string) {
	obj := &unstructured.Unstructured{Object: (&unstructured.Unstructured{Object: r.Template}).DeepCopy().Object}
	obj.SetName(name)
	obj.SetNamespace(ns)
	if len(finalizers) > 0 {
		obj.SetFinalizers(finalizers)
	}
	_, err := dyn.Resource(r.gvr).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
}

// The recorded histories of the resource on the two clusters.
const (
	sourceHistory = "source/clusters"
	targetHistory = "target/clusters"
)

// until is the bound of history converging to want within c.
func until(history string, c oracle.Convergence, want judge.Want) judge.Bound {
	return judge.Bound{Convergence: c, History: history, Want: want}
}

// running wants every name in ns there, unpaused, not deleting and
// carrying the controller's finalizer.
func (r resource) running(ns string, names ...string) judge.Want {
	keys := make([]string, len(names))
	for i, n := range names {
		keys[i] = ns + "/" + n
	}
	return judge.Running(r.Finalizer, r.PausedPath, keys...)
}

// report merges the binding's status into each object once it runs:
// what a real installation's other parts would report.
func (r resource) report(ctx context.Context, dyn dynamic.Interface, ns string, names ...string) error {
	if r.Status == nil {
		return nil
	}
	patch, err := json.Marshal(map[string]any{"status": r.Status})
	if err != nil {
		return err
	}
	for _, n := range names {
		if _, err := dyn.Resource(r.gvr).Namespace(ns).Patch(ctx, n, types.MergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
			return fmt.Errorf("capabilities.movableResource.status: merge into %s: %w", n, err)
		}
	}
	return nil
}

func finalizerSpecs() {
	Describe("A pausable, finalized resource", Label("capability:movable"), func() {
		var (
			ns   string
			spec *testenv.Spec
		)
		BeforeEach(func(ctx SpecContext) {
			ns, spec = testenv.NewNamespace(ctx, "finalizer"), testenv.Begin()
		})

		It("moves to another cluster and back, leaving nothing behind and running no cleanup while paused", Label("fault:move"), testenv.Judges(catalog.FinRanBefore, catalog.FinMoverFinished, catalog.FinP1, catalog.FinRunsAfterMove, catalog.FinP1Back, catalog.FinRunsAfterBack, catalog.FinP2, catalog.FinP3, catalog.FinP4), func(ctx SpecContext) {
			f := StartFleet(ctx, spec, ns, "alpha", "beta")

			By("moving to the target cluster")
			f.Move(ctx)
			var back time.Time
			var leftovers error
			checks := append([]oracle.Check{spec.Judged(catalog.FinRanBefore)}, f.MoveChecks(ctx, f.moved)...)
			// The move back: P1 again with the clusters' roles swapped. A
			// move back that cannot run leaves it unjudged; so does a first
			// move that left objects behind (P1 broke): the move back then
			// starts from the same bug's leftovers, and only P3 (the 422 on
			// moving onto them) is judged of it.
			checks = append(checks,
				oracle.Check{Property: catalog.FinP1Back, Run: func() error {
					if f.moveFailed != nil {
						leftovers = fmt.Errorf("%w: the first move did not finish: %w", oracle.ErrNotEvaluated, f.moveFailed)
						return leftovers
					}
					By("moving back to the source cluster")
					// A move does not carry status: report it again where the
					// objects run now.
					if err := f.r.report(ctx, f.tgtDyn, ns, f.Names...); err != nil {
						return fmt.Errorf("%w: %w", oracle.ErrNotEvaluated, err)
					}
					out, err := f.m.Move(ctx, spec, f.tgtKubeconfig, f.kubeconfig, ns)
					if err := moverErr("move back", out, err); err != nil {
						// A refusal of the controller's finalizer is P3's
						// evidence (judged later, from this fact).
						judge.FactMoverBackError.Set(spec, err.Error())
						return fmt.Errorf("%w: %w", oracle.ErrNotEvaluated, err)
					}
					back = time.Now()
					if err := spec.Judged(catalog.FinP1).Run(); err != nil {
						leftovers = fmt.Errorf("%w: the first move left objects behind (%s broke)", oracle.ErrNotEvaluated, catalog.FinP1.ID)
						return leftovers
					}
					// Judged below from what Await recorded.
					_, _ = spec.Await(ctx, catalog.FinP1Back, until(targetHistory, testenv.Within(back, 30*time.Second), judge.Empty()))
					return spec.Judged(catalog.FinP1Back).Run()
				}},
				oracle.Check{Property: catalog.FinRunsAfterBack, Run: func() error {
					switch {
					case back.IsZero():
						return fmt.Errorf("%w: the move back did not run", oracle.ErrNotEvaluated)
					case leftovers != nil:
						return leftovers
					}
					_, _ = spec.Await(ctx, catalog.FinRunsAfterBack, until(sourceHistory, testenv.Settle(back), f.r.running(ns, f.Names...)))
					return spec.Judged(catalog.FinRunsAfterBack).Run()
				}},
			)
			spec.Verify(append(checks, f.SafetyChecks(ctx)...)...)
		})

		It("never tries to add its finalizer to an object being deleted", Label("fault:foreign-finalizer"), testenv.Judges(catalog.FinRanBefore, catalog.FinReleased, catalog.FinP3), func(ctx SpecContext) {
			m := subject.Movable()
			r := bound(m)
			r.facts(spec)
			controller := m.StartResourceController(ctx, spec, nil, ns)
			env := testenv.Get()
			dyn := dynamic.NewForConfigOrDie(env.REST)
			spec.RecordAs(ctx, sourceHistory, dyn, r.gvr, ns, "")
			created := time.Now()
			r.create(ctx, dyn, ns, "held", foreign)
			DeferCleanup(func(ctx SpecContext) { // let the namespace go
				_, err := dyn.Resource(r.gvr).Namespace(ns).Patch(ctx, "held", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
				Expect(err).To(Or(Succeed(), Satisfy(apierrors.IsNotFound)), "release held's finalizer so that its namespace can go")
			})
			spec.Premise(ctx, catalog.FinRanBefore, until(sourceHistory, testenv.Settle(created), r.running(ns, "held")))
			Expect(dyn.Resource(r.gvr).Namespace(ns).Delete(ctx, "held", metav1.DeleteOptions{})).To(Succeed())
			deleted := time.Now()
			spec.Verify(append([]oracle.Check{spec.Judged(catalog.FinRanBefore)},
				releasedChecks(ctx, spec, r, controller.Replicas[0].Proxy, ns, "held", deleted)...)...)
		})
	})
}

// facts are what the judges need to know of the binding.
func (r resource) facts(spec *testenv.Spec) {
	judge.FactFinalizer.Set(spec, r.Finalizer)
	judge.FactPausedPath.Set(spec, r.PausedPath)
	judge.FactResource.Set(spec, r.Resource)
}

// moverErr is the mover's failure with its output.
func moverErr(what string, out []byte, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %v: %s", what, err, out)
	}
	return nil
}

// quietFor watches the controller's proxy log for W after since and
// returns at the first finalizer the API server refused (P3 broken).
func quietFor(ctx context.Context, p proxy.Controller, resource string, since time.Time, w time.Duration) error {
	deadline := since.Add(w)
	for {
		if err := judge.NoFinalizerRefused(p.Requests(), resource); err != nil && !errors.Is(err, oracle.ErrNotEvaluated) {
			return err
		}
		if time.Now().After(deadline) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// untilNoneOpen waits while an object of the histories is a zombie younger
// than P2's bound (it may still go), so P2 is judged on what happened.
func untilNoneOpen(ctx context.Context, r resource, hs ...*oracle.History) error {
	for {
		var wake time.Time
		for _, h := range hs {
			open, err := judge.NoneStuck(h, time.Now(), r.Finalizer, r.PausedPath, "")
			if err != nil {
				return nil // broken already: nothing to wait for
			}
			if !open.IsZero() && (wake.IsZero() || open.Before(wake)) {
				wake = open
			}
		}
		if wake.IsZero() {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Until(wake.Add(judge.StuckBound + 100*time.Millisecond))):
		}
	}
}
