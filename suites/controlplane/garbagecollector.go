package controlplane

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// holdFinalizer keeps one dependent from going away until the spec says so.
const holdFinalizer = "steadystate.dev/hold"

func garbageCollectorSpecs() {
	Describe("The garbage collector", Label("controlplane"), func() {
		var ns string
		BeforeEach(func(ctx SpecContext) { ns = testenv.NewNamespace(ctx, "foreground") })

		It("holds a foreground-deleted owner until its blocking dependents are gone, then removes it", func(ctx SpecContext) {
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

			By("waiting for the garbage collector to delete the free dependents")
			Eventually(func(g Gomega, ctx context.Context) {
				for _, name := range []string{"dependent-1", "dependent-2"} {
					_, err := cms.Get(ctx, name, metav1.GetOptions{})
					g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%s should be gone, got err=%v", name, err)
				}
				held, err := cms.Get(ctx, "dependent-0", metav1.GetOptions{})
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(held.DeletionTimestamp).NotTo(BeNil(), "the held dependent should be deleting")
			}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(100 * time.Millisecond).Should(Succeed())

			By("checking that the owner is still there, deleting, with the foregroundDeletion finalizer")
			got, err := cms.Get(ctx, owner.Name, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred(), "the owner must wait for its blocking dependent")
			Expect(got.DeletionTimestamp).NotTo(BeNil())
			Expect(got.Finalizers).To(ContainElement(metav1.FinalizerDeleteDependents))

			By("releasing the held dependent")
			patch := []byte(`{"metadata":{"finalizers":null}}`)
			_, err = cms.Patch(ctx, "dependent-0", types.MergePatchType, patch, metav1.PatchOptions{})
			Expect(err).NotTo(HaveOccurred())

			By("waiting for the owner to be removed")
			Eventually(func(ctx context.Context) error {
				_, err := cms.Get(ctx, owner.Name, metav1.GetOptions{})
				return err
			}).WithContext(ctx).WithTimeout(30*time.Second).WithPolling(100*time.Millisecond).
				Should(Satisfy(apierrors.IsNotFound), "the owner is removed once no blocking dependent is left")
		})
	})
}
