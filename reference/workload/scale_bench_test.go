package workload_test

import (
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
)

// BenchmarkScale500 scales the reference workload from 0 to 500 replicas
// and back to 1, through its fault proxy, while the workload and its pods
// are recorded as the suites record them, then judges both convergences
// and no-overshoot over the whole history: seconds to each verdict, the
// events recorded and proxied, and the heap they hold.
func BenchmarkScale500(b *testing.B) {
	e := env.Require(b)
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		subj := e.Start(b, "workload", 1, "--leader-elect=false")
		ns := e.Cluster.Namespace(b, "scale")
		dyn := dynamic.NewForConfigOrDie(e.Cluster.REST)
		w, stopW, err := oracle.RecordSelected(b.Context(), dyn, refv1.GroupVersion.WithResource("workloads"), ns, "")
		if err != nil {
			b.Fatal(err)
		}
		defer stopW()
		pods, stopP, err := oracle.RecordSelected(b.Context(), dyn, corev1.SchemeGroupVersion.WithResource("pods"), ns, "")
		if err != nil {
			b.Fatal(err)
		}
		defer stopP()
		converged, err := judge.Replicas(ns+"/web", "spec.replicas", "status.replicas", "status.observedGeneration").Match()
		if err != nil {
			b.Fatal(err)
		}
		await := func(since time.Time, metric string) {
			c := oracle.Convergence{Since: since, Within: 3 * time.Minute, Window: time.Second}
			r, err := c.Wait(b.Context(), w, converged)
			if err != nil {
				b.Fatalf("%s: %v", metric, err)
			}
			b.ReportMetric(r.Took.Seconds(), metric)
		}
		obj := &refv1.Workload{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns},
			Spec: refv1.WorkloadSpec{Replicas: 500, Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "steadystate.invalid/none"}}},
			}},
		}
		up := time.Now()
		if err := e.Client.Create(b.Context(), obj); err != nil {
			b.Fatal(err)
		}
		await(up, "s-to-500")
		down := time.Now()
		patch := client.RawPatch(client.Merge.Type(), []byte(`{"spec":{"replicas":1}}`))
		if err := e.Client.Patch(b.Context(), obj, patch); err != nil {
			b.Fatal(err)
		}
		await(down, "s-to-1")
		judged := time.Now()
		if err := judge.NoOvershoot(w.Events(), pods.Events(), judge.SpecReplicas(ns+"/web", "spec.replicas"), nil); err != nil {
			b.Errorf("no-overshoot: %v", err)
		}
		b.ReportMetric(time.Since(judged).Seconds()*1000, "ms-no-overshoot")
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(len(w.Events())+len(pods.Events())), "events")
		b.ReportMetric(float64(len(subj.Proxy(0).Events())+len(subj.Proxy(0).Requests())), "proxied")
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MB-heap")
	}
}
