package finalizer

import (
	"context"
	"fmt"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/steadystate-dev/steadystate/catalog"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
	"github.com/steadystate-dev/steadystate/reference/capi"
	"github.com/steadystate-dev/steadystate/suites/judge"
	"github.com/steadystate-dev/steadystate/suites/oracle"
	"github.com/steadystate-dev/steadystate/suites/subject"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

var (
	clusters   = refv1.GroupVersion.WithResource("clusters")
	configmaps = corev1.SchemeGroupVersion.WithResource("configmaps")
)

const foreign = "infrastructure.steadystate.dev/hold"

func create(ctx context.Context, dyn dynamic.Interface, ns, name string, finalizers ...string) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": refv1.GroupVersion.String(), "kind": "Cluster",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     map[string]any{"endpoint": "https://" + name},
	}}
	if len(finalizers) > 0 {
		obj.SetFinalizers(finalizers)
	}
	_, err := dyn.Resource(clusters).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
}

// running matches a state where every name is there, unpaused and carrying
// the controller's finalizer.
func running(ns string, names ...string) oracle.Match {
	return func(s oracle.State) (bool, string) {
		for _, n := range names {
			obj := s[ns+"/"+n]
			if obj == nil {
				return false, n + " is missing"
			}
			paused, _, _ := unstructured.NestedBool(obj.Object, "spec", "paused")
			if paused || !slices.Contains(obj.GetFinalizers(), capi.Finalizer) || obj.GetDeletionTimestamp() != nil {
				return false, fmt.Sprintf("%s: paused=%v finalizers=%v deleting=%v", n, paused, obj.GetFinalizers(), obj.GetDeletionTimestamp() != nil)
			}
		}
		return true, ""
	}
}

func empty(s oracle.State) (bool, string) {
	for key, obj := range s {
		paused, _, _ := unstructured.NestedBool(obj.Object, "spec", "paused")
		return false, fmt.Sprintf("%s is still there (deleting=%v paused=%v finalizers=%v)", key, obj.GetDeletionTimestamp() != nil, paused, obj.GetFinalizers())
	}
	return true, ""
}

var _ = Describe("A pausable, finalized resource", Label("capability:movable"), func() {
	var ns string
	BeforeEach(func(ctx SpecContext) {
		ns = testenv.NewNamespace(ctx, "finalizer")
		testenv.Fact(judge.FactFinalizer, capi.Finalizer)
		testenv.Fact(judge.FactResource, "clusters")
	})

	It("moves to another cluster and back, leaving nothing behind and running no cleanup while paused", Label("fault:move"), func(ctx SpecContext) {
		m := subject.Movable()
		tgtKubeconfig, tgtREST := moveTarget(ctx)
		tgtKube := kubernetes.NewForConfigOrDie(tgtREST)
		_, err := tgtKube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func(ctx SpecContext) { tgtKube.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}) })
		m.StartResourceController(ctx, nil, ns)
		m.StartResourceController(ctx, tgtREST, ns)
		env := testenv.Get()
		dyn, tgtDyn := dynamic.NewForConfigOrDie(env.REST), dynamic.NewForConfigOrDie(tgtREST)
		source, dest := testenv.RecordAs(ctx, "source/clusters", dyn, clusters, ns, ""), testenv.RecordAs(ctx, "target/clusters", tgtDyn, clusters, ns, "")
		testenv.RecordAs(ctx, "source/cleanups", dyn, configmaps, ns, capi.LabelCleanupOf)
		testenv.RecordAs(ctx, "target/cleanups", tgtDyn, configmaps, ns, capi.LabelCleanupOf)
		testenv.Fact(judge.FactClusters, "source,target")
		testenv.Fact(judge.FactCleanupUIDLabel, capi.LabelCleanupUID)
		names := []string{"alpha", "beta"}
		created := time.Now()
		for _, n := range names {
			create(ctx, dyn, ns, n)
		}
		_, readyErr := testenv.Settle(created).Wait(ctx, source, running(ns, names...))

		By("moving to the target cluster")
		out, moveErr := m.Move(ctx, env.Kubeconfig, tgtKubeconfig, ns)
		moved := time.Now()
		fig := oracle.Figures{}
		testenv.Verify(
			oracle.Check{Property: catalog.FinRanBefore, Run: func() error { return readyErr }},
			oracle.Check{Property: catalog.FinMoverFinished, Run: func() error { return moverErr("move", out, moveErr) }},
			oracle.Check{Property: catalog.FinP1, Figures: fig, Run: func() error {
				r, err := testenv.Within(moved, 30*time.Second).Wait(ctx, source, empty)
				fig["gone"] = r.Took.Round(time.Millisecond).String()
				return err
			}},
			oracle.Check{Property: catalog.FinRunsAfterMove, Run: func() error {
				_, err := testenv.Settle(moved).Wait(ctx, dest, running(ns, names...))
				return err
			}},
			// The move back: P1 again with the clusters' roles swapped. A
			// move back that cannot run leaves it unjudged.
			oracle.Check{Property: catalog.FinP1, Run: func() error {
				By("moving back to the source cluster")
				out, err := m.Move(ctx, tgtKubeconfig, env.Kubeconfig, ns)
				if err := moverErr("move back", out, err); err != nil {
					return fmt.Errorf("%w: %w", oracle.ErrNotEvaluated, err)
				}
				back := time.Now()
				if _, err := testenv.Within(back, 30*time.Second).Wait(ctx, dest, empty); err != nil {
					return fmt.Errorf("moving back: %w", err)
				}
				_, err = testenv.Settle(back).Wait(ctx, source, running(ns, names...))
				return err
			}},
			oracle.Check{Property: catalog.FinP2, Run: func() error {
				// A zombie younger than the bound may still go: wait for it.
				if err := untilNoneOpen(ctx, source, dest); err != nil {
					return fmt.Errorf("%w: %w", oracle.ErrNotEvaluated, err)
				}
				return testenv.Judged(catalog.FinP2).Run()
			}},
			testenv.Judged(catalog.FinP3),
			testenv.Judged(catalog.FinP4),
		)
	})

	It("never tries to add its finalizer to an object being deleted", Label("fault:foreign-finalizer"), func(ctx SpecContext) {
		controller := subject.Movable().StartResourceController(ctx, nil, ns)
		env := testenv.Get()
		dyn := dynamic.NewForConfigOrDie(env.REST)
		h := testenv.RecordAs(ctx, "source/clusters", dyn, clusters, ns, "")
		created := time.Now()
		create(ctx, dyn, ns, "held", foreign)
		DeferCleanup(func(ctx SpecContext) { // let the namespace go
			dyn.Resource(clusters).Namespace(ns).Patch(ctx, "held", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		})
		_, readyErr := testenv.Settle(created).Wait(ctx, h, running(ns, "held"))
		Expect(dyn.Resource(clusters).Namespace(ns).Delete(ctx, "held", metav1.DeleteOptions{})).To(Succeed())
		deleted := time.Now()
		var released time.Time
		testenv.Verify(
			oracle.Check{Property: catalog.FinRanBefore, Run: func() error { return readyErr }},
			oracle.Check{Property: catalog.FinReleased, Run: func() error {
				r, err := testenv.Within(deleted, 15*time.Second).Wait(ctx, h, func(s oracle.State) (bool, string) {
					obj := s[ns+"/held"]
					return obj != nil && obj.GetDeletionTimestamp() != nil && !slices.Contains(obj.GetFinalizers(), capi.Finalizer), "the controller's finalizer is still there"
				})
				released = r.At
				return err
			}},
			oracle.Check{Property: catalog.FinP3, Run: func() error {
				if err := quietFor(ctx, controller.Replicas[0].Proxy, released, 2*time.Second); err != nil {
					return err
				}
				return testenv.Judged(catalog.FinP3).Run()
			}},
		)
	})
})

// moverErr is the mover's failure with its output.
func moverErr(what string, out []byte, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %v: %s", what, err, out)
	}
	return nil
}

// quietFor watches the controller's proxy log for W after since and fails
// at the first 422.
func quietFor(ctx context.Context, p proxy.Controller, since time.Time, w time.Duration) error {
	deadline := since.Add(w)
	for {
		if err := judge.No422(p.Requests(), "clusters"); err != nil {
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
func untilNoneOpen(ctx context.Context, hs ...*oracle.History) error {
	for {
		var wake time.Time
		for _, h := range hs {
			open, err := judge.NoneStuck(h, time.Now(), capi.Finalizer, "")
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
