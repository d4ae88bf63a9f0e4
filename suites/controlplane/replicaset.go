package controlplane

import (
	"context"
	"fmt"
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

	"github.com/steadystate-dev/steadystate/catalog"
	"github.com/steadystate-dev/steadystate/suites/oracle"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// convergeTimeout bounds how long the ReplicaSet controller may take.
const convergeTimeout = 30 * time.Second

func replicaSetSpecs() {
	Describe("The ReplicaSet controller", Label("controlplane"), func() {
		var ns string
		BeforeEach(func(ctx SpecContext) { ns = testenv.NewNamespace(ctx, "replicaset") })

		It("creates pods up to the replica count, then removes them when scaled down", testenv.Judges(catalog.CPReplicaSetScalesUp, catalog.CPReplicaSetScalesDown), func(ctx SpecContext) {
			env := testenv.Get()
			rs := replicaSet(ns, "web", 3)
			Expect(env.Klient.Resources().Create(ctx, rs)).To(Succeed())
			testenv.Verify(
				oracle.Check{Property: catalog.CPReplicaSetScalesUp, Run: func() error {
					By("converging to 3 replicas")
					if err := waitForReplicas(ctx, rs, 3); err != nil {
						return err
					}
					pods, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
					if err != nil {
						return fmt.Errorf("%w: list the pods: %w", oracle.ErrNotEvaluated, err)
					}
					if len(pods.Items) != 3 {
						return fmt.Errorf("%d pods for 3 replicas", len(pods.Items))
					}
					for _, pod := range pods.Items {
						if owner := metav1.GetControllerOf(&pod); owner == nil || owner.UID != rs.UID {
							return fmt.Errorf("pod %s is not controlled by ReplicaSet %s", pod.Name, rs.Name)
						}
					}
					return nil
				}},
				oracle.Check{Property: catalog.CPReplicaSetScalesDown, Run: func() error {
					By("scaling down to 1 replica")
					if err := env.Klient.Resources().Get(ctx, rs.Name, ns, rs); err != nil {
						return fmt.Errorf("%w: get the ReplicaSet: %w", oracle.ErrNotEvaluated, err)
					}
					rs.Spec.Replicas = ptr.To[int32](1)
					if err := env.Klient.Resources().Update(ctx, rs); err != nil {
						return fmt.Errorf("%w: scale the ReplicaSet down: %w", oracle.ErrNotEvaluated, err)
					}
					if err := waitForReplicas(ctx, rs, 1); err != nil {
						return err
					}
					live := 0
					err := wait.For(func(ctx context.Context) (bool, error) {
						pods, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
						if err != nil {
							return false, nil
						}
						live = 0
						for _, p := range pods.Items {
							if p.DeletionTimestamp == nil {
								live++
							}
						}
						return live == 1, nil
					}, wait.WithContext(ctx), wait.WithTimeout(convergeTimeout), wait.WithInterval(100*time.Millisecond))
					if err != nil && ctx.Err() == nil {
						return fmt.Errorf("%d live pods for 1 replica %s after scaling down", live, convergeTimeout)
					}
					return err
				}},
			)
		})
	})
}

// waitForReplicas is nil once rs reports n replicas for its current
// generation, within convergeTimeout.
func waitForReplicas(ctx context.Context, rs *appsv1.ReplicaSet, n int32) error {
	cond := conditions.New(testenv.Get().Klient.Resources()).ResourceMatch(rs, func(obj k8s.Object) bool {
		r := obj.(*appsv1.ReplicaSet)
		return r.Status.ObservedGeneration == r.Generation && r.Status.Replicas == n
	})
	err := wait.For(cond, wait.WithContext(ctx), wait.WithTimeout(convergeTimeout), wait.WithInterval(100*time.Millisecond))
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("ReplicaSet %s/%s does not report %d replicas for its current generation within %s (status.replicas %d)", rs.Namespace, rs.Name, n, convergeTimeout, rs.Status.Replicas)
	}
	return err
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
