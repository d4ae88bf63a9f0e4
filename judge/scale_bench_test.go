package judge

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// scaledHistory is a workload scaled up to 500 replicas and back, over
// and over, and its pods created and deleted one by one: at least n
// events in all, the workload's status following its spec.
func scaledHistory(n int) (workload, pods *oracle.History, last time.Time) {
	workload, pods = oracle.NewHistory(), oracle.NewHistory()
	at, rv, gen := time.Unix(0, 0), int64(0), int64(0)
	next := func() (time.Time, string) {
		at, rv = at.Add(time.Millisecond), rv+1
		return at, strconv.FormatInt(rv, 10)
	}
	setWorkload := func(spec, status int64) {
		t, v := next()
		o := &unstructured.Unstructured{Object: map[string]any{
			"metadata": map[string]any{"namespace": "ns", "name": "web", "resourceVersion": v, "generation": gen},
			"spec":     map[string]any{"replicas": spec},
			"status":   map[string]any{"replicas": status, "observedGeneration": gen},
		}}
		workload.Add(oracle.Event{At: t, Type: "MODIFIED", Key: "ns/web", Object: o})
	}
	pod := func(i int, typ string) {
		t, v := next()
		o := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"namespace": "ns", "name": "web-" + strconv.Itoa(i), "resourceVersion": v}}}
		pods.Add(oracle.Event{At: t, Type: typ, Key: "ns/web-" + strconv.Itoa(i), Object: o})
	}
	for live := 0; rv < int64(n); {
		gen++
		setWorkload(500, int64(live))
		for ; live < 500; live++ {
			pod(live, "ADDED")
		}
		setWorkload(500, 500)
		gen++
		setWorkload(1, 500)
		for live > 1 {
			live--
			pod(live, "DELETED")
		}
		setWorkload(1, 1)
		last = at
	}
	return workload, pods, last
}

// BenchmarkJudgeScaledHistory is the time and memory to a verdict on a
// workload scaled between 1 and 500 replicas: no-overshoot over the whole
// history and the last change's convergence. MB-history is the heap the
// recorded histories hold.
func BenchmarkJudgeScaledHistory(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			w, p, last := scaledHistory(n)
			runtime.GC()
			runtime.ReadMemStats(&after)
			converged, err := Replicas("ns/web", "spec.replicas", "status.replicas", "status.observedGeneration").Match()
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if err := NoOvershoot(w.Events(), p.Events(), SpecReplicas("ns/web", "spec.replicas"), nil); err != nil {
					b.Fatal(err)
				}
				c := oracle.Convergence{Since: last.Add(-time.Second), Within: time.Minute, Window: time.Millisecond}
				if _, err := c.Check(w, converged, last.Add(time.Second)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(w.Events())+len(p.Events())), "events")
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MB-history")
		})
	}
}
