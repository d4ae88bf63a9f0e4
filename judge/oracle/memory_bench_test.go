package oracle

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// BenchmarkHistoryMemory is the heap a recorder's history holds after n
// pod events (500 pods made, changed and deleted over and over), spooled
// as the suites record (testenv.Spec.RecordAs) and kept whole in memory.
// Reported as MB-held: the live heap after a GC, less the heap before;
// spooled, it must stay flat from 100k to 1M events. ms-state-at is the
// time to the latest state, what a live convergence wait asks for most.
func BenchmarkHistoryMemory(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		for _, mode := range []string{"spooled", "in-memory"} {
			b.Run(fmt.Sprintf("events=%d/%s", n, mode), func(b *testing.B) {
				for b.Loop() {
					before := liveHeap()
					h := NewHistory()
					if mode == "spooled" {
						if err := h.Spool(filepath.Join(b.TempDir(), "h.jsonl"), DefaultWindow); err != nil {
							b.Fatal(err)
						}
					}
					t0 := time.Unix(0, 0)
					for i := range n {
						h.Add(Event{At: t0.Add(time.Duration(i) * time.Millisecond), Type: []string{"ADDED", "MODIFIED", "DELETED"}[(i/500)%3],
							Key: "ns/web-" + strconv.Itoa(i%500), Object: benchPod(i)})
					}
					held := liveHeap() - before
					start := time.Now()
					h.StateAt(t0.Add(time.Duration(n) * time.Millisecond))
					b.ReportMetric(float64(time.Since(start).Microseconds())/1000, "ms-state-at")
					b.ReportMetric(float64(held)/(1<<20), "MB-held")
					if err := h.Close(); err != nil {
						b.Fatal(err)
					}
					runtime.KeepAlive(h)
				}
			})
		}
	}
}

// benchPod is a pod object as a recorder keeps it.
func benchPod(i int) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "web-" + strconv.Itoa(i%500), "namespace": "ns", "resourceVersion": strconv.Itoa(1000 + i),
			"labels":          map[string]any{"app": "web", "pod-template-hash": "abc123"},
			"ownerReferences": []any{map[string]any{"apiVersion": "reference.steadystate.dev/v1alpha1", "kind": "Workload", "name": "web", "uid": "0b5e1c8e-3f1a-4a59-9a39-4f0f2b3c9d11"}}},
		"spec":   map[string]any{"containers": []any{map[string]any{"name": "app", "image": "registry.example/app:v1"}}},
		"status": map[string]any{"phase": "Pending"},
	}}
}

func liveHeap() int64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
