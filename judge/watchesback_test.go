package judge

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
)

// TestRecordedEndStateTakenBeforeTheWatchesWereBack: a hunt's schedule on
// KEDA (v2.18.1) partitioned it from the API server while the harness
// changed its ScaledObject (maxReplicaCount 3 to 5). After the recovery
// KEDA's informers listed again one by one as their backoff let them, the
// ScaledObjects' last, 5.4 s later. The harness took the end state 5 s
// after the recovery, the objects ready all along, before KEDA had seen
// the change: same-end-state broke on the HPA's maxReplicas, and the
// quiet window, begun once the watches were back, met KEDA's status
// writes as it caught up. As the log stood at that end mark KEDA was not
// watching ScaledObjects again (StaleWatches); it was before it updated
// the HPA. The recovery's settle window now starts once they are back
// (steadystate.WatchesBack, SettlePhase.WatchesBack).
func TestRecordedEndStateTakenBeforeTheWatchesWereBack(t *testing.T) {
	e := readEvidence(t, filepath.Join("keda", "explore-keda-steady-partition-behind.json"))
	var phases []SettlePhase
	var end EndMark
	if err := json.Unmarshal([]byte(e.Facts[FactSteadyRecover]), &phases); err != nil || len(phases) != 1 {
		t.Fatalf("recover phases %v, %v", phases, err)
	}
	if err := json.Unmarshal([]byte(e.Facts[FactSteadyEnd]), &end); err != nil {
		t.Fatal(err)
	}
	if len(e.Faults) == 0 {
		t.Fatal("the recorded schedule has no fault")
	}
	logs := map[string][]proxy.Request{"keda-0": e.Proxies["keda-0"].Requests}
	first, since := e.Faults[0].Start, phases[0].Since
	if stale := StaleWatches(logs, first, end.At); !slices.Contains(stale, "scaledobjects") {
		t.Errorf("at the end mark, %s after the recovery: stale %v, want scaledobjects", end.At.Sub(since), stale)
	}
	var back, hpaUpdate time.Time
	for _, r := range logs["keda-0"] {
		if r.Verb == "watch" && r.Resource == "scaledobjects" && r.Start.After(since) && back.IsZero() {
			back = r.Start
		}
		if r.Verb == "update" && r.Resource == "horizontalpodautoscalers" && r.Start.After(since) {
			hpaUpdate = r.Start
		}
	}
	if back.IsZero() || hpaUpdate.IsZero() || !back.Before(hpaUpdate) || !back.After(end.At) {
		t.Fatalf("scaledobjects watched again at %v, the HPA updated at %v, the end mark at %v: want end mark, watch, update in that order", back, hpaUpdate, end.At)
	}
	if stale := StaleWatches(logs, first, back.Add(time.Millisecond)); len(stale) > 0 {
		t.Errorf("once the ScaledObjects' watch was back: stale %v, want none", stale)
	}
	if d := back.Sub(since); d < 5*time.Second || d > 6*time.Second {
		t.Errorf("watched again %s after the recovery; the log says 5.4 s", d)
	}
}
