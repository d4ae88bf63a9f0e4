package explore

import (
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/chaos"
)

// The failover exploration judges is the last kill that acted: a kill
// that failed, or another fault, is none.
func TestLastKill(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	failover := chaos.LeaderFailover{}.Name()
	if _, ok := lastKill([]chaos.Injection{{Fault: "process-kill", Start: t0}, {Fault: failover, Start: t0, Error: "kill leader-0: no such process"}}); ok {
		t.Error("a failed kill or another fault counts as the holder killed")
	}
	got, ok := lastKill([]chaos.Injection{{Fault: failover, Start: t0}, {Fault: failover, Start: t0.Add(2 * time.Second)}, {Fault: failover, Start: t0.Add(3 * time.Second), Error: "failed"}})
	if !ok || !got.Equal(t0.Add(2*time.Second)) {
		t.Errorf("last kill = %s %v, want the second", got, ok)
	}
}
