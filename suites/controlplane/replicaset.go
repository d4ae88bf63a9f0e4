package controlplane

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// convergeTimeout bounds how long the ReplicaSet controller may take.
const convergeTimeout = 30 * time.Second

func replicaSetSpecs() {
	Describe("The ReplicaSet controller", Label("controlplane"), func() {
		var (
			ns   string
			spec *testenv.Spec
		)
		BeforeEach(func(ctx SpecContext) { ns, spec = testenv.NewNamespace(ctx, "replicaset"), testenv.Begin() })

		It("creates pods up to the replica count, then removes them when scaled down", testenv.Judges(catalog.CPReplicaSetScalesUp, catalog.CPReplicaSetScalesDown), func(ctx SpecContext) {
			env := testenv.Get()
			dyn := dynamic.NewForConfigOrDie(env.REST)
			spec.RecordAs(ctx, judge.HistoryReplicaSets, dyn, appsv1.SchemeGroupVersion.WithResource("replicasets"), ns, "")
			spec.RecordAs(ctx, judge.HistoryPods, dyn, corev1.SchemeGroupVersion.WithResource("pods"), ns, "")
			rs := replicaSet(ns, "web", 3)
			created := time.Now()
			Expect(env.Klient.Resources().Create(ctx, rs)).To(Succeed())
			// status.replicas for the current generation; the judge counts
			// the live pods too.
			want := judge.Replicas(ns+"/"+rs.Name, "spec.replicas", "status.replicas", "status.observedGeneration")
			spec.Verify(
				spec.Converges(ctx, catalog.CPReplicaSetScalesUp, func() judge.Bound {
					By("converging to 3 replicas")
					return judge.Bound{Convergence: testenv.Within(created, convergeTimeout), History: judge.HistoryReplicaSets, Want: want}
				}, "took"),
				spec.Converges(ctx, catalog.CPReplicaSetScalesDown, func() judge.Bound {
					By("scaling down to 1 replica")
					scaled := time.Now()
					_, err := env.Kube.AppsV1().ReplicaSets(ns).Patch(ctx, rs.Name, types.MergePatchType, []byte(`{"spec":{"replicas":1}}`), metav1.PatchOptions{})
					Expect(err).NotTo(HaveOccurred(), fmt.Sprintf("scale ReplicaSet %s/%s down", ns, rs.Name))
					return judge.Bound{Convergence: testenv.Within(scaled, convergeTimeout), History: judge.HistoryReplicaSets, Want: want}
				}, "took"),
			)
		})
	})
}

func replicaSet(ns, name string, replicas int32) *appsv1.ReplicaSet {
	labels := map[string]string{"app": name}
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					// No node runs pods here; the ReplicaSet controller
					// only needs to create them.
					Containers: []corev1.Container{{Name: "app", Image: "steadystate.invalid/none:never"}},
				},
			},
		},
	}
}
