package controlplane

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/e2e-framework/klient/k8s"
	"sigs.k8s.io/e2e-framework/klient/wait"
	"sigs.k8s.io/e2e-framework/klient/wait/conditions"

	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// convergeTimeout bounds how long the ReplicaSet controller may take.
const convergeTimeout = 30 * time.Second

func replicaSetSpecs() {
	Describe("The ReplicaSet controller", Label("controlplane"), func() {
		var ns string
		BeforeEach(func(ctx SpecContext) { ns = testenv.NewNamespace(ctx, "replicaset") })

		It("creates pods up to the replica count, then removes them when scaled down", func(ctx SpecContext) {
			env := testenv.Get()
			rs := replicaSet(ns, "web", 3)
			Expect(env.Klient.Resources().Create(ctx, rs)).To(Succeed())

			By("converging to 3 replicas")
			waitForReplicas(ctx, rs, 3)
			pods, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
			Expect(err).NotTo(HaveOccurred())
			Expect(pods.Items).To(HaveLen(3))
			for _, pod := range pods.Items {
				owner := metav1.GetControllerOf(&pod)
				Expect(owner).NotTo(BeNil(), "pod %s has no controller", pod.Name)
				Expect(owner.UID).To(Equal(rs.UID))
			}

			By("scaling down to 1 replica")
			Expect(env.Klient.Resources().Get(ctx, rs.Name, ns, rs)).To(Succeed())
			rs.Spec.Replicas = ptr.To[int32](1)
			Expect(env.Klient.Resources().Update(ctx, rs)).To(Succeed())
			waitForReplicas(ctx, rs, 1)
			Expect(wait.For(func(ctx context.Context) (bool, error) {
				pods, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
				if err != nil {
					return false, err
				}
				live := 0
				for _, p := range pods.Items {
					if p.DeletionTimestamp == nil {
						live++
					}
				}
				return live == 1, nil
			}, wait.WithContext(ctx), wait.WithTimeout(convergeTimeout), wait.WithInterval(100*time.Millisecond))).
				To(Succeed(), "one live pod left after scaling down")
		})
	})
}

func waitForReplicas(ctx context.Context, rs *appsv1.ReplicaSet, n int32) {
	cond := conditions.New(testenv.Get().Klient.Resources()).ResourceMatch(rs, func(obj k8s.Object) bool {
		r := obj.(*appsv1.ReplicaSet)
		return r.Status.ObservedGeneration == r.Generation && r.Status.Replicas == n
	})
	Expect(wait.For(cond, wait.WithContext(ctx), wait.WithTimeout(convergeTimeout), wait.WithInterval(100*time.Millisecond))).
		To(Succeed(), "ReplicaSet %s/%s reports %d replicas for its current generation", rs.Namespace, rs.Name, n)
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
