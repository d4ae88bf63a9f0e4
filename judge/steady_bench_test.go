package judge

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// steadyEvidence is a steady-state run of n events: one Widget owning
// children ConfigMaps the controller creates (each create in its proxy
// log), updates again and again, and which go once the Widget is deleted;
// then a quiet window with no write.
func steadyEvidence(n, children int) *evidence.Evidence {
	widgets, maps := oracle.NewHistory(), oracle.NewHistory()
	start := time.Unix(1000, 0)
	at, rv := start, 0
	next := func() (time.Time, string) {
		at, rv = at.Add(time.Millisecond), rv+1
		return at, strconv.Itoa(rv)
	}
	t, v := next()
	widget := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"namespace": "ns", "name": "w", "uid": "w-uid", "generation": int64(1), "resourceVersion": v},
		"status":   map[string]any{"observedGeneration": int64(1)}}}
	widgets.Add(oracle.Event{At: t, Type: "ADDED", Key: "ns/w", Object: widget})
	applied := t
	var requests []proxy.Request
	child := func(i int, typ string) {
		t, v := next()
		name := "w-" + strconv.Itoa(i)
		o := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"namespace": "ns", "name": name, "uid": name + "-uid", "resourceVersion": v,
				"ownerReferences": []any{map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "name": "w", "uid": "w-uid"}}},
			"data": map[string]any{"rv": v}}}
		maps.Add(oracle.Event{At: t, Type: typ, Key: "ns/" + name, Object: o})
		if typ == "ADDED" {
			requests = append(requests, proxy.Request{ID: uint64(len(requests) + 1), RequestInfo: proxy.RequestInfo{Verb: "create", Version: "v1", Resource: "configmaps", Namespace: "ns"},
				Code: 201, Start: t.Add(-time.Microsecond), End: t})
		}
	}
	for i := range children {
		child(i, "ADDED")
	}
	for i := 0; rv < n-children-1; i = (i + 1) % children {
		child(i, "MODIFIED")
	}
	settled := at
	quiet := QuietWindow{From: at.Add(time.Second), To: at.Add(11 * time.Second)}
	deleted := quiet.To
	at = deleted
	t, _ = next()
	widgets.Add(oracle.Event{At: t, Type: "DELETED", Key: "ns/w", Object: widget})
	for i := range children {
		child(i, "DELETED")
	}
	fact := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	h := map[string]*oracle.History{SteadyHistory("widgets.example.com"): widgets, SteadyHistory("configmaps"): maps}
	e := &evidence.Evidence{Format: evidence.Format, Start: start, End: at.Add(time.Minute), Histories: map[string][]oracle.EventRecord{},
		Proxies: map[string]evidence.ProxyLog{"c-0": {Requests: requests}},
		Facts: map[string]string{
			FactSteadyHistories.Name: SteadyHistory("widgets.example.com") + "," + SteadyHistory("configmaps"),
			FactSteadyObjects.Name:   SteadyKey(SteadyHistory("widgets.example.com"), "ns", "w"),
			FactSteadySettle.Name:    fact([]SettlePhase{{What: "the objects were applied", Since: applied, Within: (settled.Sub(applied) + time.Minute).String(), Window: "5s", Objects: []string{SteadyKey(SteadyHistory("widgets.example.com"), "ns", "w")}}}),
			FactSteadyQuiet.Name:     fact(quiet),
			FactSteadyDeleted.Name:   fact(Deletion{Applied: applied, At: deleted, Within: "60s"}),
			FactReplica.Name:         "c-0",
		}}
	for name, hist := range h {
		e.Histories[name] = hist.Records()
	}
	return e
}

// BenchmarkSteadyStateJudges is the time to each steady-state verdict over
// a run of 100k events (a Widget, 1,000 owned ConfigMaps it creates and
// updates, deleted at the end), and its allocations.
func BenchmarkSteadyStateJudges(b *testing.B) {
	e := steadyEvidence(100_000, 1_000)
	for _, id := range []string{catalog.SteadySettles.ID, catalog.SteadyQuiescent.ID, catalog.SteadyLeavesNothing.ID} {
		b.Run(id, func(b *testing.B) {
			if err := Offline[id](e); err != nil {
				b.Fatalf("%s: %v", id, err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := Offline[id](e); err != nil {
					b.Fatalf("%s: %v", id, err)
				}
			}
			b.ReportMetric(float64(len(e.Histories[SteadyHistory("configmaps")])+len(e.Histories[SteadyHistory("widgets.example.com")])), "events")
		})
	}
}

// The evidence the benchmark judges holds every verdict it measures: a
// benchmark of a judge that fails early measures nothing.
func TestSteadyBenchEvidenceHolds(t *testing.T) {
	e := steadyEvidence(2_000, 20)
	for _, id := range []string{catalog.SteadySettles.ID, catalog.SteadyQuiescent.ID, catalog.SteadyLeavesNothing.ID} {
		if err := Offline[id](e); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
}
