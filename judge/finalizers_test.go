package judge

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

var t0 = time.Now().Add(-time.Hour)

const fin, uidLabel = "cluster.example/finalizer", "example/cleanup-uid"

// clusterAt is ns/a (uid a) at revision rv, in a state: "run" (finalizer,
// unpaused), "paused", "zombie" (deleting, paused, finalizer), "deleting"
// (deleting, unpaused, finalizer).
func clusterAt(rv int, state string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]any{}}
	obj.SetName("a")
	obj.SetNamespace("ns")
	obj.SetUID(types.UID("a"))
	obj.SetResourceVersion(strconv.Itoa(rv))
	obj.SetFinalizers([]string{fin})
	if err := unstructured.SetNestedField(obj.Object, state == "paused" || state == "zombie", "spec", "paused"); err != nil {
		panic(err)
	}
	if state == "zombie" || state == "deleting" {
		obj.Object["metadata"].(map[string]any)["deletionTimestamp"] = "2026-01-01T00:00:00Z"
	}
	return obj
}

func TestNoneStuck(t *testing.T) {
	h := oracle.NewHistory()
	h.Add(oracle.Event{At: t0, Type: "MODIFIED", Key: "ns/a", Object: clusterAt(1, "paused")})
	h.Add(oracle.Event{At: t0.Add(time.Second), Type: "MODIFIED", Key: "ns/a", Object: clusterAt(2, "zombie")})
	h.Add(oracle.Event{At: t0.Add(5 * time.Second), Type: "DELETED", Key: "ns/a", Object: clusterAt(3, "zombie")})
	if open, err := NoneStuck(h, t0.Add(time.Minute), fin, DefaultPausedPath, "source"); err != nil || !open.IsZero() {
		t.Errorf("stuck for 4s: %v (open since %v)", err, open)
	}
	h = oracle.NewHistory()
	h.Add(oracle.Event{At: t0, Type: "MODIFIED", Key: "ns/a", Object: clusterAt(1, "zombie")})
	if open, err := NoneStuck(h, t0.Add(10*time.Second), fin, DefaultPausedPath, "source"); err != nil || !open.Equal(t0) {
		t.Errorf("stuck for 10s so far: %v (open since %v)", err, open)
	}
	_, err := NoneStuck(h, time.Now(), fin, DefaultPausedPath, "source")
	var v *oracle.Violation
	if !errors.Is(err, ErrStuck) || !errors.As(err, &v) || !v.At.Equal(t0.Add(StuckBound)) {
		t.Errorf("stuck for an hour: %v", err)
	}
}

func TestNoCleanupWhilePaused(t *testing.T) {
	clusters := []oracle.Event{
		{At: t0, Type: "MODIFIED", Key: "ns/a", Object: clusterAt(10, "paused")},
		{At: t0.Add(time.Second), Type: "MODIFIED", Key: "ns/a", Object: clusterAt(12, "zombie")},
		{At: t0.Add(2 * time.Second), Type: "MODIFIED", Key: "ns/a", Object: clusterAt(14, "deleting")},
	}
	record := func(rv int) []oracle.Event {
		cm := &unstructured.Unstructured{Object: map[string]any{}}
		cm.SetLabels(map[string]string{uidLabel: "a"})
		cm.SetResourceVersion(strconv.Itoa(rv))
		return []oracle.Event{{At: t0.Add(3 * time.Second), Type: "ADDED", Key: "ns/cleanup-a", Object: cm}}
	}
	if err := NoCleanupWhilePaused(clusters, record(15), uidLabel, DefaultPausedPath, "source"); err != nil {
		t.Errorf("cleanup after unpausing: %v", err)
	}
	// Stored between the zombie state and the unpause: paused at the time,
	// whatever the arrival order of the two recorders.
	if err := NoCleanupWhilePaused(clusters, record(13), uidLabel, DefaultPausedPath, "source"); !errors.Is(err, ErrCleanupWhilePaused) {
		t.Errorf("cleanup while paused: %v", err)
	}
	if err := NoCleanupWhilePaused(clusters, record(5), uidLabel, DefaultPausedPath, "source"); !errors.Is(err, oracle.ErrNotEvaluated) {
		t.Errorf("cleanup of an unknown Cluster: %v", err)
	}
}

// TestP3IsTheFinalizerRefusal: P3 breaks on the API server's finalizer
// refusal only. A 422 from the schema is another matter (the old judge
// counted every 422); a 422 the proxy itself answered is no API server's;
// a 422 whose message the log does not keep leaves P3 not evaluated.
func TestP3IsTheFinalizerRefusal(t *testing.T) {
	update := func(code int, msg, fault string) proxy.Request {
		return proxy.Request{RequestInfo: proxy.RequestInfo{Verb: "update", Resource: "clusters", Name: "a"}, Code: code, Message: msg, Fault: fault, Start: t0}
	}
	const refused = `Cluster.reference.steadystate.dev "a" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"cluster.reference.steadystate.dev"}`
	const schema = `Cluster.reference.steadystate.dev "a" is invalid: spec.size: Invalid value: -1: spec.size in body should be greater than or equal to 0`
	for _, tc := range []struct {
		name string
		reqs []proxy.Request
		want verdict.Outcome
	}{
		{"answered", []proxy.Request{update(200, "", "")}, verdict.Held},
		{"schema 422", []proxy.Request{update(200, "", ""), update(422, schema, "")}, verdict.Held},
		{"the proxy's own 422", []proxy.Request{update(422, "injected by the steadystate fault proxy", "answer-422")}, verdict.Held},
		{"finalizer refused", []proxy.Request{update(422, schema, ""), update(422, refused, "")}, verdict.Broken},
		{"422 without a message", []proxy.Request{update(422, "", "")}, verdict.NotEvaluated},
		{"refused beside one without a message", []proxy.Request{update(422, "", ""), update(422, refused, "")}, verdict.Broken},
	} {
		e := &evidence.Evidence{Facts: map[string]string{FactResource.Name: "clusters"}, Proxies: map[string]evidence.ProxyLog{"cluster-0": {Requests: tc.reqs}}}
		if got := judged(t, catalog.FinP3.ID, e); got.Outcome != tc.want {
			t.Errorf("%s: %s %q, want %s", tc.name, got.Outcome, got.Reason, tc.want)
		}
	}
}

// TestP3ReadsTheMover: a mover the API server refused with the finalizer
// message is P3's evidence; a mover that failed otherwise is not.
func TestP3ReadsTheMover(t *testing.T) {
	for _, tc := range []struct {
		name, fact, failure string
		want                verdict.Outcome
	}{
		{"move refused", FactMoverError.Name, "move: exit status 1: " + FinalizerRefused, verdict.Broken},
		{"move back refused", FactMoverBackError.Name, "move back: exit status 1: " + FinalizerRefused, verdict.Broken},
		{"move failed otherwise", FactMoverError.Name, "move: exit status 2: the target already has Cluster ns/a", verdict.Held},
	} {
		e := &evidence.Evidence{Facts: map[string]string{FactResource.Name: "clusters", tc.fact: tc.failure}, Proxies: map[string]evidence.ProxyLog{"cluster-0": {}}}
		if got := judged(t, catalog.FinP3.ID, e); got.Outcome != tc.want {
			t.Errorf("%s: %s %q, want %s", tc.name, got.Outcome, got.Reason, tc.want)
		}
	}
}
