package controlplane

import (
	"fmt"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// holdFinalizer keeps one dependent from going away until the spec says so.
const holdFinalizer = "steadystate.dev/hold"

// settleTimeout bounds each step of the garbage collector.
const settleTimeout = 30 * time.Second

func garbageCollectorSpecs() {
	Describe("The garbage collector", Label("controlplane"), func() {
		var (
			ns   string
			spec *testenv.Spec
		)
		BeforeEach(func(ctx SpecContext) { ns, spec = testenv.NewNamespace(ctx, "foreground"), testenv.Begin() })

		It("holds a foreground-deleted owner until its blocking dependents are gone, then removes it", testenv.Judges(catalog.CPGCHoldsOwner, catalog.CPGCRemovesOwner), func(ctx SpecContext) {
			env := testenv.Get()
			spec.RecordAs(ctx, judge.HistoryConfigMaps, dynamic.NewForConfigOrDie(env.REST), corev1.SchemeGroupVersion.WithResource("configmaps"), ns, "")
			cms := env.Kube.CoreV1().ConfigMaps(ns)
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
			DeferCleanup(func(ctx SpecContext) { // let the namespace go
				_, err := cms.Patch(ctx, "dependent-0", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
				Expect(err).To(Or(Succeed(), Satisfy(apierrors.IsNotFound)), "release dependent-0's finalizer so that its namespace can go")
			})

			By("deleting the owner with propagationPolicy=Foreground")
			deleted := time.Now()
			Expect(cms.Delete(ctx, owner.Name, metav1.DeleteOptions{
				PropagationPolicy: ptr.To(metav1.DeletePropagationForeground),
			})).To(Succeed())

			judge.FactGCOwner.Set(spec, ns+"/"+owner.Name)
			judge.FactGCHeld.Set(spec, ns+"/dependent-0")
			spec.Verify(
				spec.Converges(ctx, catalog.CPGCHoldsOwner, func() judge.Bound {
					By("waiting for the garbage collector to delete the free dependents")
					return judge.Bound{Convergence: testenv.Within(deleted, settleTimeout), History: judge.HistoryConfigMaps,
						Want: judge.All(judge.Gone(ns+"/dependent-1"), judge.Gone(ns+"/dependent-2"))}
				}, ""),
				spec.Converges(ctx, catalog.CPGCRemovesOwner, func() judge.Bound {
					By("releasing the held dependent")
					released := time.Now()
					_, err := cms.Patch(ctx, "dependent-0", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
					Expect(err).NotTo(HaveOccurred(), "release the held dependent")
					return judge.Bound{Convergence: testenv.Within(released, settleTimeout), History: judge.HistoryConfigMaps, Want: judge.Gone(ns + "/" + owner.Name)}
				}, ""),
			)
		})
	})
}
