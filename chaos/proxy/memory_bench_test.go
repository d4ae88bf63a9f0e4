package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// BenchmarkProxyMemory is the heap the proxy holds after n watch events
// passed through it to a client-go watch, with its history spooled to a
// file (Options.Log, as the runner starts it) and kept in memory whole.
// Reported as MB-held: the live heap after a GC, less the heap before
// the proxy started. Spooled, it must stay flat from 100k to 1M events.
func BenchmarkProxyMemory(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		for _, mode := range []string{"spooled", "in-memory"} {
			b.Run(fmt.Sprintf("events=%d/%s", n, mode), func(b *testing.B) {
				upstream := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusOK)
					enc := json.NewEncoder(w)
					for i := range n {
						if err := enc.Encode(map[string]any{"type": "ADDED", "object": benchPod(i)}); err != nil {
							return // the proxy hung up
						}
					}
				}))
				defer upstream.Close()
				up := &rest.Config{Host: upstream.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
				for b.Loop() {
					before := heapInUse()
					o := Options{Upstream: up, Replica: "bench"}
					if mode == "spooled" {
						o.Log = filepath.Join(b.TempDir(), "proxy.jsonl")
					}
					p, err := Start(o)
					if err != nil {
						b.Fatal(err)
					}
					w, err := kubernetes.NewForConfigOrDie(p.RESTConfig()).CoreV1().Pods("bench").Watch(context.Background(), metav1.ListOptions{ResourceVersion: "1"})
					if err != nil {
						b.Fatal(err)
					}
					got := 0
					for range w.ResultChan() {
						got++
					}
					held := heapInUse() - before
					if got != n {
						b.Fatalf("received %d events through the proxy, want %d", got, n)
					}
					b.ReportMetric(float64(held)/(1<<20), "MB-held")
					runtime.KeepAlive(p)
					p.Close()
				}
			})
		}
	}
}

// heapInUse is the live heap after a collection.
func heapInUse() int64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
