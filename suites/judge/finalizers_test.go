package judge

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/suites/oracle"
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
	unstructured.SetNestedField(obj.Object, state == "paused" || state == "zombie", "spec", "paused")
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

func TestNo422(t *testing.T) {
	reqs := []proxy.Request{{RequestInfo: proxy.RequestInfo{Verb: "update", Resource: "clusters", Name: "a"}, Code: 200}}
	if err := No422(reqs, "clusters"); err != nil {
		t.Error(err)
	}
	reqs = append(reqs, proxy.Request{RequestInfo: proxy.RequestInfo{Verb: "update", Resource: "clusters", Name: "a"}, Code: 422, Start: t0})
	if err := No422(reqs, "clusters"); !errors.Is(err, ErrFinalizerWhileDeleting) {
		t.Errorf("a 422: %v", err)
	}
}
