package local

import (
	"context"
	"slices"
	"testing"
	"time"
)

// BenchmarkStartStop measures a local cluster from Start to ready (the API
// server's /readyz and the controller manager's /healthz answer ok, and with
// simulated nodes the scheduler's /healthz too and every node Ready) and
// from Stop to every process gone, with cached binaries: from the seeded
// store (made before the timed starts, as the first start on a machine
// makes it) and from an empty one, each with the default simulated nodes
// and without any. It reports the medians as start-ms and stop-ms: run it
// with `make bench`.
func BenchmarkStartStop(b *testing.B) {
	bins := requireBinaries(b)
	for _, store := range []struct {
		name  string
		fresh bool
	}{{"seeded", false}, {"fresh", true}} {
		for _, nodes := range []struct {
			name    string
			noNodes bool
		}{{"nodes", false}, {"no-nodes", true}} {
			b.Run(store.name+"/"+nodes.name, func(b *testing.B) {
				if !nodes.noNodes {
					requireNodeBinaries(b, bins)
				}
				opts := Options{Name: "bench", BinDir: binDirOf(bins), FreshStore: store.fresh, NoNodes: nodes.noNodes}
				if !nodes.noNodes {
					opts.Nodes = DefaultNodes
				}
				benchmarkStartStop(b, opts)
			})
		}
	}
}

func benchmarkStartStop(b *testing.B, opts Options) {
	if !opts.FreshStore {
		c, err := Start(context.Background(), opts) // makes the seed if there is none
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Stop(); err != nil {
			b.Fatal(err)
		}
	}
	var starts, stops []time.Duration
	for b.Loop() {
		t0 := time.Now()
		c, err := Start(context.Background(), opts)
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := c.Stop(); err != nil {
			b.Fatal(err)
		}
		starts = append(starts, t1.Sub(t0))
		stops = append(stops, time.Since(t1))
	}
	b.ReportMetric(median(starts), "start-ms")
	b.ReportMetric(median(stops), "stop-ms")
	b.ReportMetric(0, "ns/op") // the wall time of a loop mixes both: read the medians
}

func median(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2].Microseconds()) / 1000
}
