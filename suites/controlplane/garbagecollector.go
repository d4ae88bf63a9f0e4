package controlplane

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/utils/ptr"

	"github.com/steadystate-dev/steadystate/catalog"
	"github.com/steadystate-dev/steadystate/suites/oracle"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// holdFinalizer keeps one dependent from going away until the spec says so.
const holdFinalizer = "steadystate.dev/hold"

// settleTimeout bounds each step of the garbage collector.
const settleTimeout = 30 * time.Second

// freeGoneHeldDeleting is nil once the free dependents are gone and the
// held one is deleting, otherwise what is not so yet.
func freeGoneHeldDeleting(ctx context.Context, cms typedcorev1.ConfigMapInterface) error {
	for _, name := range []string{"dependent-1", "dependent-2"} {
		if _, err := cms.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("%s is not gone (err=%v)", name, err)
		}
	}
	held, err := cms.Get(ctx, "dependent-0", metav1.GetOptions{})
	switch {
	case err != nil:
		return fmt.Errorf("the held dependent: %w", err)
	case held.DeletionTimestamp == nil:
		return errors.New("the held dependent is not deleting")
	}
	return nil
}

func garbageCollectorSpecs() {
	Describe("The garbage collector", Label("controlplane"), func() {
		var ns string
		BeforeEach(func(ctx SpecContext) { ns = testenv.NewNamespace(ctx, "foreground") })

		It("holds a foreground-deleted owner until its blocking dependents are gone, then removes it", testenv.Judges(catalog.CPGCHoldsOwner, catalog.CPGCRemovesOwner), func(ctx SpecContext) {
			cms := testenv.Get().Kube.CoreV1().ConfigMaps(ns)
			owner, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
			ref := metav1.OwnerReference{
				APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID,
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}
			for i := range 3 {
				dep := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
					Name: fmt.Sprintf("dependent-%d", i), OwnerReferences: []metav1.OwnerReference{ref},
				}}
				if i == 0 {
					dep.Finalizers = []string{holdFinalizer}
				}
				_, err := cms.Create(ctx, dep, metav1.CreateOptions{})
				Expect(err).NotTo(HaveOccurred())
			}

			By("deleting the owner with propagationPolicy=Foreground")
			Expect(cms.Delete(ctx, owner.Name, metav1.DeleteOptions{
				PropagationPolicy: ptr.To(metav1.DeletePropagationForeground),
			})).To(Succeed())

			testenv.Verify(
				oracle.Check{Property: catalog.CPGCHoldsOwner, Run: func() error {
					By("waiting for the garbage collector to delete the free dependents")
					var last error
					err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, settleTimeout, true, func(ctx context.Context) (bool, error) {
						last = freeGoneHeldDeleting(ctx, cms)
						return last == nil, nil
					})
					if err != nil {
						if ctx.Err() != nil {
							return err
						}
						return fmt.Errorf("within %s of the delete: %w", settleTimeout, last)
					}
					By("checking that the owner is still there, deleting, with the foregroundDeletion finalizer")
					got, err := cms.Get(ctx, owner.Name, metav1.GetOptions{})
					switch {
					case apierrors.IsNotFound(err):
						return errors.New("the owner is gone while its blocking dependent remains")
					case err != nil:
						return fmt.Errorf("%w: get the owner: %w", oracle.ErrNotEvaluated, err)
					case got.DeletionTimestamp == nil:
						return errors.New("the owner is not deleting")
					case !slices.Contains(got.Finalizers, metav1.FinalizerDeleteDependents):
						return fmt.Errorf("the owner has finalizers %v, not %s", got.Finalizers, metav1.FinalizerDeleteDependents)
					}
					return nil
				}},
				oracle.Check{Property: catalog.CPGCRemovesOwner, Run: func() error {
					By("releasing the held dependent")
					patch := []byte(`{"metadata":{"finalizers":null}}`)
					if _, err := cms.Patch(ctx, "dependent-0", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
						return fmt.Errorf("%w: release the held dependent: %w", oracle.ErrNotEvaluated, err)
					}
					By("waiting for the owner to be removed")
					err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, settleTimeout, true, func(ctx context.Context) (bool, error) {
						_, err := cms.Get(ctx, owner.Name, metav1.GetOptions{})
						return apierrors.IsNotFound(err), nil
					})
					if err != nil && ctx.Err() == nil {
						return fmt.Errorf("the owner is still there %s after its last blocking dependent was released", settleTimeout)
					}
					return err
				}},
			)
		})
	})
}
