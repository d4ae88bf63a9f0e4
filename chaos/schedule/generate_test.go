package schedule

import "testing"

// A fault the run cannot inject is never drawn.
func TestGenerateLeavesOutWithout(t *testing.T) {
	l := DefaultLimits
	l.Without = []string{"etcd-compaction", "watch-stall"}
	for seed := uint64(1); seed <= 300; seed++ {
		for _, st := range Generate(seed, Scalable, l).Steps {
			if st.Fault == "etcd-compaction" || st.Fault == "watch-stall" {
				t.Fatalf("seed %d drew %s, which Without leaves out", seed, st.Fault)
			}
		}
	}
}
