package schedule

import (
	"slices"
	"testing"
	"time"
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

// However small the limits, a drawn schedule is valid: its held faults
// hold, and its delayed events are delayed, for some time.
func TestGenerateWithTinyLimitsIsValid(t *testing.T) {
	for _, c := range Capabilities {
		for seed := uint64(1); seed <= 200; seed++ {
			s := Generate(seed, c, Limits{Steps: 8, Horizon: time.Millisecond, Longest: time.Millisecond, Replicas: 2})
			if p := s.Validate(); len(p) > 0 {
				t.Fatalf("%s seed %d drew an invalid schedule: %+v\n%+v", c, seed, p, s)
			}
		}
	}
}
