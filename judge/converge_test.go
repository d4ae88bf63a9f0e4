package judge

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// A workload's convergence is judged from its pods as well as from the
// status it reports. Derived from a recorded run (the late-events spec,
// correct mode): with one of its three pods gone from the pods history,
// the status still says 3 of 3. Judged from the status alone, as the
// bound was before (want "replicas"), that held: a status the objects
// contradict passed for convergence. Counting live pods, as recorded, it
// is broken.
func TestStatusThePodsContradictIsNotConvergence(t *testing.T) {
	id := catalog.LostLateEvents.ID
	read := func(t *testing.T, statusAlone, losePod bool) *evidence.Evidence {
		t.Helper()
		e, err := evidence.Read(filepath.Join("testdata", "lostevents-correct-late-events.json"))
		if err != nil {
			t.Fatal(err)
		}
		if pods := e.Histories[HistoryPods]; losePod {
			lost := pods[len(pods)-1].Key
			e.Histories[HistoryPods] = slices.DeleteFunc(pods, func(r oracle.EventRecord) bool { return r.Key == lost })
		}
		b, err := FactConvergence(id).Get(e)
		if err != nil || b.Want.Kind != wantWorkload {
			t.Fatalf("the recorded bound: %+v, %v", b, err)
		}
		if statusAlone {
			a := b.Want.Args
			b.Want = Replicas(b.Want.Keys[0], a["spec"], a["status"], a["generation"])
			FactConvergence(id).Put(e, b)
		}
		return e
	}
	for _, tc := range []struct {
		name                 string
		statusAlone, losePod bool
		want                 verdict.Outcome
		reason               string
	}{
		{"the recording", false, false, verdict.Held, ""},
		{"the recording, status alone", true, false, verdict.Held, ""},
		{"a pod missing, status alone (the old oracle)", true, true, verdict.Held, ""},
		{"a pod missing", false, true, verdict.Broken, "the status claims 3 of 3 replicas, but 2 pods are live"},
	} {
		got := judged(t, id, read(t, tc.statusAlone, tc.losePod))
		if got.Outcome != tc.want || !strings.Contains(got.Reason, tc.reason) {
			t.Errorf("%s: %s %q, want %s with %q", tc.name, got.Outcome, got.Reason, tc.want, tc.reason)
		}
	}

	// Evidence without the pods history cannot judge it.
	e := read(t, false, false)
	delete(e.Histories, HistoryPods)
	if got := judged(t, id, e); got.Outcome != verdict.NotEvaluated || !strings.Contains(got.Reason, `history "pods"`) {
		t.Errorf("no pods history: %s %q", got.Outcome, got.Reason)
	}
}

// A pod being deleted, or finished, is not live.
func TestLivePod(t *testing.T) {
	for _, tc := range []struct {
		name string
		obj  map[string]any
		live bool
	}{
		{"pending", map[string]any{"status": map[string]any{"phase": "Pending"}}, true},
		{"no status", map[string]any{}, true},
		{"deleting", map[string]any{"metadata": map[string]any{"deletionTimestamp": "2026-11-23T12:22:02Z"}}, false},
		{"succeeded", map[string]any{"status": map[string]any{"phase": "Succeeded"}}, false},
		{"failed", map[string]any{"status": map[string]any{"phase": "Failed"}}, false},
	} {
		if got := livePod(obj("web-a", tc.obj)); got != tc.live {
			t.Errorf("%s: live %v", tc.name, got)
		}
	}
}

// A workload that does not converge is reported with the subject file's
// paths, so a person can tell a controller that lags from a binding that
// reads the wrong field: before, the reason said "observed replicas 2
// (current generation: true), desired 3" and named neither.
func TestNotConvergedNamesThePaths(t *testing.T) {
	web := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "web", "namespace": "ns", "generation": int64(2)},
		"spec": map[string]any{"replicas": int64(3)}, "status": map[string]any{"availableReplicas": int64(2), "observedGeneration": int64(1)}}}
	ok, why := replicasConverged("ns/web", "spec.replicas", "status.availableReplicas", "status.observedGeneration")(oracle.State{"ns/web": web})
	want := "observed replicas (status.availableReplicas) 2, desired (spec.replicas) 3, status.observedGeneration is the current generation: false"
	if ok || why != want {
		t.Errorf("got %v %q, want false %q", ok, why, want)
	}
}
