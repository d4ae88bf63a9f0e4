package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// BenchmarkAddedLatency measures what the proxy adds to a request: the
// median GET of one ConfigMap through the proxy minus the median GET
// straight to the API server, interleaved so both see the same load.
// Reported as added-µs (target: at most 1000).
func BenchmarkAddedLatency(b *testing.B) {
	c := localtestRequire(b)
	p, err := Start(Options{Upstream: c.REST, Replica: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	ns := fmt.Sprintf("bench-%d", time.Now().UnixNano())
	ctx := context.Background()
	if _, err := c.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	if _, err := c.Kube.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	viaCfg := p.RESTConfig()
	viaCfg.QPS, viaCfg.Burst = -1, 0
	direct := c.Kube.CoreV1().ConfigMaps(ns)
	via := kubernetes.NewForConfigOrDie(viaCfg).CoreV1().ConfigMaps(ns)
	timeGet := func(cms interface {
		Get(context.Context, string, metav1.GetOptions) (*corev1.ConfigMap, error)
	}) time.Duration {
		t0 := time.Now()
		if _, err := cms.Get(ctx, "cm", metav1.GetOptions{}); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	for range 20 { // warm connections on both paths
		timeGet(direct)
		timeGet(via)
	}
	var ds, vs []time.Duration
	for b.Loop() {
		ds = append(ds, timeGet(direct))
		vs = append(vs, timeGet(via))
	}
	b.ReportMetric(medianMicros(ds), "direct-µs")
	b.ReportMetric(medianMicros(vs), "proxied-µs")
	b.ReportMetric(medianMicros(vs)-medianMicros(ds), "added-µs")
}

func medianMicros(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2].Nanoseconds()) / 1000
}

// BenchmarkWatchThroughput measures watch events per second through the
// proxy, parsed and recorded one by one, from an upstream that streams
// pre-encoded Pod events as fast as it can, to a client-go watch that
// decodes them. The API server is left out so the figure is the proxy's.
// Reported as events/s (target: at least 5000).
func BenchmarkWatchThroughput(b *testing.B) {
	const events = 20000
	upstream := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		enc := json.NewEncoder(w)
		for i := range events {
			pod := benchPod(i)
			if err := enc.Encode(map[string]any{"type": "ADDED", "object": pod}); err != nil {
				return // the proxy hung up
			}
		}
		w.(http.Flusher).Flush()
	}))
	defer upstream.Close()
	up := &rest.Config{Host: upstream.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
	var rate []float64
	for b.Loop() {
		p, err := Start(Options{Upstream: up, Replica: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		client := kubernetes.NewForConfigOrDie(p.RESTConfig())
		t0 := time.Now()
		w, err := client.CoreV1().Pods("bench").Watch(context.Background(), metav1.ListOptions{ResourceVersion: "1"})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for range w.ResultChan() {
			n++
		}
		elapsed := time.Since(t0)
		p.Close()
		if n != events {
			b.Fatalf("received %d events through the proxy, want %d", n, events)
		}
		rate = append(rate, float64(n)/elapsed.Seconds())
	}
	slices.Sort(rate)
	b.ReportMetric(rate[len(rate)/2], "events/s")
}

func benchPod(i int) *corev1.Pod {
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("pod-%d", i), Namespace: "bench", ResourceVersion: fmt.Sprint(1000 + i),
			Labels:          map[string]string{"app": "bench", "pod-template-hash": "abc123"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "bench", UID: "0b5e1c8e-3f1a-4a59-9a39-4f0f2b3c9d11"}},
		},
		Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/app:v1", Args: []string{"--flag=value"}}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
}
