package chaosmesh

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chaos-mesh/chaos-mesh/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/cluster/local/localtest"
	"github.com/steadystate-dev/steadystate/fixtures"
)

// These tests run the adapter against the PodChaos and NetworkChaos CRDs
// generated from the Chaos Mesh API types, on a local cluster without Chaos
// Mesh's controller-manager. A stand-in controller in the test reports
// AllInjected the way Chaos Mesh does. What they cannot show without Chaos
// Mesh itself: that pods are really killed or partitioned, how Chaos Mesh
// resolves the selectors, and its webhook's validation of the specs.
func TestChaosMeshAdapter(t *testing.T) {
	c := localtest.Start(t, local.Options{Name: "chaosmesh"})
	dyn := dynamic.NewForConfigOrDie(c.REST)
	target := chaos.Target{Kube: c.Kube, Dynamic: dyn}
	ns := c.Namespace(t, "chaosmesh")
	kill := &PodKill{Namespace: ns, Labels: map[string]string{"app": "web"}, Timeout: 2 * time.Second}

	t.Run("refused before the CRDs exist", func(t *testing.T) {
		_, err := chaos.Inject(t.Context(), chaos.NewTimeline(), kill, target)
		if err == nil || !strings.Contains(err.Error(), "Chaos Mesh is not installed") {
			t.Fatalf("err = %v", err)
		}
	})

	if err := fixtures.Apply(t.Context(), c.REST, fixtures.ChaosMesh, "chaosmesh/*.yaml"); err != nil {
		t.Fatal(err)
	}
	// Discovery may lag behind the CRD's Established condition.
	localtest.Eventually(t, 10*time.Second, "discovery to serve chaos-mesh.org", func() bool { return kill.Available(target) == nil })

	t.Run("no controller: times out and leaves nothing", func(t *testing.T) {
		_, err := chaos.Inject(t.Context(), chaos.NewTimeline(), kill, target)
		if err == nil || !strings.Contains(err.Error(), "did not report AllInjected within 2s") {
			t.Fatalf("err = %v", err)
		}
		assertNoExperiments(t, dyn, ns, "podchaos")
	})

	stop := standInController(t, dyn, ns)
	defer stop()

	t.Run("pod kill", func(t *testing.T) {
		tl := chaos.NewTimeline()
		inj, err := chaos.Inject(t.Context(), tl, kill, target)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(inj.Target, ns+"/steadystate-") || len(tl.Injections()) != 1 {
			t.Errorf("injection %+v, timeline %v", inj, tl.Injections())
		}
		assertNoExperiments(t, dyn, ns, "podchaos")
	})

	t.Run("network partition", func(t *testing.T) {
		f := &NetworkPartition{Namespace: ns, Labels: map[string]string{"app": "web"}, TargetLabels: map[string]string{"app": "db"}, Duration: 300 * time.Millisecond, Timeout: 5 * time.Second}
		inj, err := chaos.Inject(t.Context(), chaos.NewTimeline(), f, target)
		if err != nil {
			t.Fatal(err)
		}
		if held := inj.End.Sub(inj.Start); held < 300*time.Millisecond {
			t.Errorf("the partition was held %s, less than its 300ms", held)
		}
		assertNoExperiments(t, dyn, ns, "networkchaos")
	})
}

// standInController marks every experiment in ns AllInjected, as Chaos
// Mesh's controller-manager would once it has acted. The CRDs generated from
// the API types have no status subresource, so status goes with an update.
func standInController(t *testing.T, dyn dynamic.Interface, ns string) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			for _, res := range []string{"podchaos", "networkchaos"} {
				client := dyn.Resource(GroupVersion.WithResource(res)).Namespace(ns)
				list, err := client.List(ctx, metav1.ListOptions{})
				if err != nil {
					continue
				}
				for _, item := range list.Items {
					if hasCondition(&item, v1alpha1.ConditionAllInjected) {
						continue
					}
					status, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(&v1alpha1.ChaosStatus{
						Conditions: []v1alpha1.ChaosCondition{{Type: v1alpha1.ConditionAllInjected, Status: "True"}},
					})
					unstructured.SetNestedField(item.Object, status, "status")
					if _, err := client.Update(ctx, &item, metav1.UpdateOptions{}); err != nil {
						t.Logf("stand-in: %v", err)
					}
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	return func() { cancel(); <-done }
}

func assertNoExperiments(t *testing.T, dyn dynamic.Interface, ns, resource string) {
	t.Helper()
	list, err := dyn.Resource(GroupVersion.WithResource(resource)).Namespace(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 0 {
		t.Errorf("%d %s experiments left behind", len(list.Items), resource)
	}
}
