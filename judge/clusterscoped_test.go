package judge

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// The recorded runs of fixtures/zoo/operators/cert-manager-clusterissuer.yaml
// (cert-manager v1.21.2, a self-signed ClusterIssuer named
// {{.Namespace}}-selfsigned and a Certificate it issues; one conform run,
// every spec passed): its first clean run and its stale-view spec.
const (
	issuersHistory = "steady/clusterissuers.cert-manager.io"
	cleanIssuer    = "clusterscoped/cert-manager-clusterissuer-clean.json"
	staleIssuer    = "clusterscoped/cert-manager-clusterissuer-stale-view.json"
)

// TestRecordedClusterScopedObjectLeavesNothingBehind: the ClusterIssuer,
// recorded without a namespace, is among what had to go; with its
// deletion cut from the history and the evidence running on past T (the
// suite stops watching once nothing is left), leaves-nothing-behind
// breaks naming it.
func TestRecordedClusterScopedObjectLeavesNothingBehind(t *testing.T) {
	e := readEvidence(t, cleanIssuer)
	for _, id := range []string{catalog.SteadySettles.ID, catalog.SteadyQuiescent.ID, catalog.SteadyLeavesNothing.ID} {
		if got := judged(t, id, e); got.Outcome != verdict.Held {
			t.Errorf("%s: %s %q, want held", id, got.Outcome, got.Reason)
		}
	}
	recs := e.Histories[issuersHistory]
	if n := len(recs); n == 0 || recs[n-1].Type != "DELETED" {
		t.Fatalf("the ClusterIssuer's history does not end deleted: %v", recs)
	}
	e.Histories[issuersHistory] = recs[:len(recs)-1]
	var d Deletion
	if err := json.Unmarshal([]byte(e.Facts[FactSteadyDeleted.Name]), &d); err != nil {
		t.Fatal(err)
	}
	within, err := time.ParseDuration(d.Within)
	if err != nil {
		t.Fatal(err)
	}
	e.End = d.At.Add(within + time.Second)
	got := judged(t, catalog.SteadyLeavesNothing.ID, e)
	if got.Outcome != verdict.Broken || !strings.Contains(got.Reason, "ClusterIssuer steady/clusterissuers.cert-manager.io:/steady-xshmg-selfsigned (applied or owned) not deleted") {
		t.Errorf("the ClusterIssuer left: %s %q", got.Outcome, got.Reason)
	}
	// Declared shared as the binding names it, {{.Namespace}} and all, it
	// may stay.
	e.Facts[FactSteadyShared.Name] += ",ClusterIssuer/{{.Namespace}}-selfsigned"
	if got := judged(t, catalog.SteadyLeavesNothing.ID, e); got.Outcome != verdict.Held {
		t.Errorf("the ClusterIssuer left, shared: %s %q, want held", got.Outcome, got.Reason)
	}
}

// TestRecordedClusterScopedWriteInTheQuietWindow: a write of the run's
// ClusterIssuer in the quiet window breaks quiescence; one of another
// run's (its name carries another namespace) does not.
func TestRecordedClusterScopedWriteInTheQuietWindow(t *testing.T) {
	with := func(name string) *evidence.Evidence {
		e := readEvidence(t, cleanIssuer)
		var q QuietWindow
		if err := json.Unmarshal([]byte(e.Facts[FactSteadyQuiet.Name]), &q); err != nil {
			t.Fatal(err)
		}
		p := e.Proxies["cert-manager-clusterissuer-0"]
		at := q.From.Add(q.To.Sub(q.From) / 2)
		p.Requests = append(p.Requests, proxy.Request{ID: 1 << 20, Replica: "cert-manager-clusterissuer-0",
			RequestInfo: proxy.RequestInfo{Verb: "update", Group: "cert-manager.io", Resource: "clusterissuers", Subresource: "status", Name: name}, Code: 200, Start: at, End: at})
		e.Proxies["cert-manager-clusterissuer-0"] = p
		return e
	}
	if got := judged(t, catalog.SteadyQuiescent.ID, with("steady-other-selfsigned")); got.Outcome != verdict.Held {
		t.Errorf("another run's ClusterIssuer written: %s %q, want held", got.Outcome, got.Reason)
	}
	got := judged(t, catalog.SteadyQuiescent.ID, with("steady-xshmg-selfsigned"))
	if got.Outcome != verdict.Broken || !strings.Contains(got.Reason, "update clusterissuers/status /steady-xshmg-selfsigned ×1") {
		t.Errorf("the run's ClusterIssuer written: %s %q, want broken", got.Outcome, got.Reason)
	}
}

// TestRecordedClusterScopedObjectSameEndState: the stale-view run's
// ClusterIssuer (steady-rb4bz-selfsigned) matches the clean runs' (other
// namespaces, other names) with the namespace masked in its name; with its
// Ready condition False at the end, same-end-state breaks naming it as
// every run names it.
func TestRecordedClusterScopedObjectSameEndState(t *testing.T) {
	e := readEvidence(t, staleIssuer)
	if got := judged(t, catalog.SteadySameEndState.ID, e); got.Outcome != verdict.Held {
		t.Fatalf("same-end-state: %s %q, want held", got.Outcome, got.Reason)
	}
	recs := slices.Clone(e.Histories[issuersHistory]) // a new slice: rebuilt again
	e.Histories[issuersHistory] = recs
	last := recs[len(recs)-1].Object
	cond := last["status"].(map[string]any)["conditions"].([]any)[0].(map[string]any)
	cond["status"] = "False"
	got := judged(t, catalog.SteadySameEndState.ID, e)
	if got.Outcome != verdict.Broken || !strings.Contains(got.Reason, `ClusterIssuer/{{.Namespace}}-selfsigned status.conditions[Ready].status: "True" in the reference, "False" after the faults`) {
		t.Errorf("the ClusterIssuer not ready at the end: %s %q", got.Outcome, got.Reason)
	}
}
