package local

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// BenchmarkThousandPods measures how long a Deployment of 1,000 replicas
// takes, on a running local cluster with its default simulated nodes, from
// its creation to Available with every replica ready (the ReplicaSet
// controller creating the pods, kube-scheduler binding them, kwok making
// them Running and Ready), and then from its deletion until its last pod is
// gone. It reports the medians as ready-ms and gone-ms: run it with
// `go test -run '^$' -bench ThousandPods -benchtime 1x ./cluster/local`.
func BenchmarkThousandPods(b *testing.B) {
	const replicas = 1000
	bins := requireBinaries(b)
	requireNodeBinaries(b, bins)
	c, err := Start(context.Background(), Options{Name: "bench-pods", BinDir: binDirOf(bins), Nodes: DefaultNodes})
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := c.Stop(); err != nil {
			b.Error(err)
		}
	}()
	cfg, err := c.RESTConfig()
	if err != nil {
		b.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 100, 200
	kube := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	labels := map[string]string{"app": "many"}
	var readies, gones []time.Duration
	for b.Loop() {
		d := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "many", Namespace: "default"},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](replicas),
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "steadystate.invalid/none"}}},
				},
			},
		}
		t0 := time.Now()
		if _, err := kube.AppsV1().Deployments("default").Create(ctx, d, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		var last appsv1.DeploymentStatus
		err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 10*time.Minute, true, func(ctx context.Context) (bool, error) {
			got, err := kube.AppsV1().Deployments("default").Get(ctx, "many", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			last = got.Status
			return available(got) && got.Status.ReadyReplicas == replicas && got.Status.ObservedGeneration == got.Generation, nil
		})
		if err != nil {
			b.Fatalf("the Deployment of %d replicas is not Available with every replica ready: %v; last status %s", replicas, err, last.String())
		}
		t1 := time.Now()
		readies = append(readies, t1.Sub(t0))
		if err := kube.AppsV1().Deployments("default").Delete(ctx, "many", metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationForeground)}); err != nil {
			b.Fatal(err)
		}
		err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 10*time.Minute, true, func(ctx context.Context) (bool, error) {
			if _, err := kube.AppsV1().Deployments("default").Get(ctx, "many", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return false, err
			}
			pods, err := kube.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=many", Limit: 1})
			return err == nil && len(pods.Items) == 0, err
		})
		if err != nil {
			b.Fatalf("the Deployment and its pods are not gone: %v", err)
		}
		gones = append(gones, time.Since(t1))
		b.Logf("%d pods: Available with every replica ready in %s, gone %s after the deletion", replicas, readies[len(readies)-1].Round(time.Millisecond), gones[len(gones)-1].Round(time.Millisecond))
	}
	b.ReportMetric(median(readies), "ready-ms")
	b.ReportMetric(median(gones), "gone-ms")
	b.ReportMetric(0, "ns/op")
}
