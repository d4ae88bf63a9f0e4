package steps_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/e2e-framework/pkg/env"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/envfuncs"
	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/steps"
)

// testenv is nil when the Kubernetes binaries are not built: the example
// skips, the package's unit tests still run.
var testenv env.Environment

const ns = "steps-example"

// TestMain is an e2e-framework environment on steadystate's local
// cluster provider: a cluster and a namespace for the package's tests.
func TestMain(m *testing.M) {
	if _, err := local.FindBinaries(os.Getenv("KUBE_BIN_DIR"), os.Getenv("KUBE_VERSION")); err != nil {
		if os.Getenv("STEADYSTATE_REQUIRE_BINARIES") == "1" {
			fmt.Fprintf(os.Stderr, "Kubernetes binaries are required: %v\n", err)
			os.Exit(1)
		}
		fmt.Printf("skipping the e2e-framework example: it needs Kubernetes binaries, which are not built: %v\n", err)
		os.Exit(m.Run())
	}
	testenv = env.NewWithConfig(envconf.New())
	cluster := "steps-example"
	testenv.Setup(envfuncs.CreateCluster(local.NewProvider(local.Options{}), cluster), envfuncs.CreateNamespace(ns))
	testenv.Finish(envfuncs.DeleteNamespace(ns), envfuncs.DestroyCluster(cluster))
	os.Exit(testenv.Run(m))
}

// The ReplicaSet controller of the cluster's kube-controller-manager
// replaces pods deleted in a storm, judged by steadystate's oracle over
// the recorded history of the ReplicaSet.
func TestReplicaSetReplacesDeletedPods(t *testing.T) {
	if testenv == nil {
		t.Skip("needs Kubernetes binaries")
	}
	replicasets := appsv1.SchemeGroupVersion.WithResource("replicasets")
	settled := judge.Replicas(ns+"/web", "spec.replicas", "status.replicas", "status.observedGeneration")
	f := features.New("a ReplicaSet under a pod deletion storm").
		Setup(steps.Record("replicasets", replicasets, ns)).
		Setup(func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
			labels := map[string]string{"app": "web"}
			rs := &appsv1.ReplicaSet{
				ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
				Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](3), Selector: &metav1.LabelSelector{MatchLabels: labels},
					Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
						Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "example.com/web:1"}}}}},
			}
			if err := cfg.Client().Resources().Create(ctx, rs); err != nil {
				t.Fatal(err)
			}
			return steps.Changed(ctx)
		}).
		Assess("it creates its pods", steps.Converges("replicasets", settled, 30*time.Second, time.Second)).
		Assess("it replaces pods deleted in a storm", steps.Inject(chaos.PodDeletion{Namespace: ns, Selector: "app=web", Fraction: 0.67}, steps.Target)).
		Assess("and settles again", steps.Converges("replicasets", settled, 30*time.Second, time.Second)).
		Feature()
	testenv.Test(t, f)
}
