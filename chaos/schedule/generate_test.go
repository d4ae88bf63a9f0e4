package schedule

import (
	"slices"
	"testing"
)

// A fault the run cannot inject, or a workload step it cannot do, is
// never drawn; the rest still are.
func TestGenerateLeavesOutWithout(t *testing.T) {
	l := DefaultLimits
	l.Without = []string{"etcd-compaction", "watch-stall", "create-claim"}
	drawn := map[string]bool{}
	for seed := uint64(1); seed <= 300; seed++ {
		for _, capability := range []string{Scalable, Composite} {
			for _, st := range Generate(seed, capability, l).Steps {
				if slices.Contains(l.Without, st.Name()) {
					t.Fatalf("seed %d drew %s, which Without leaves out", seed, st.Name())
				}
				drawn[st.Name()] = true
			}
		}
	}
	if !drawn["delete-claim"] || !drawn["watch-cut"] {
		t.Errorf("drew %v: delete-claim and watch-cut are not left out", drawn)
	}
}
