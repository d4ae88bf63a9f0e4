package steps

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// The convergence a step asserts fails on a history that never reaches
// the wanted state, and holds on one that does.
func TestConverges(t *testing.T) {
	start := time.Now()
	rs := func(spec, status int64) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "web", "namespace": "ns"},
			"spec": map[string]any{"replicas": spec}, "status": map[string]any{"replicas": status}}}
	}
	want := judge.Replicas("ns/web", "spec.replicas", "status.replicas", "")
	c := oracle.Convergence{Since: start, Within: 50 * time.Millisecond, Window: 10 * time.Millisecond}

	stuck := oracle.NewHistory()
	stuck.Add(oracle.Event{At: start, Type: "ADDED", Key: "ns/web", Object: rs(3, 1)})
	if _, err := converges(context.Background(), stuck, want, c); !errors.Is(err, oracle.ErrNotConverged) {
		t.Errorf("a ReplicaSet stuck at 1 of 3: %v", err)
	}
	settles := oracle.NewHistory()
	settles.Add(oracle.Event{At: start, Type: "ADDED", Key: "ns/web", Object: rs(3, 1)})
	settles.Add(oracle.Event{At: start.Add(5 * time.Millisecond), Type: "MODIFIED", Key: "ns/web", Object: rs(3, 3)})
	if res, err := converges(context.Background(), settles, want, c); err != nil || res.Took != 5*time.Millisecond {
		t.Errorf("a ReplicaSet that settles after 5ms: %v, %v", res, err)
	}
	if _, err := converges(context.Background(), settles, judge.Want{Kind: "happy"}, c); err == nil {
		t.Error("an unknown want was accepted")
	}
}

// A convergence judged on a history whose recorder's watch expired (it
// would have had to relist, and may have missed states) is not evaluated:
// an error naming evidence/complete, never a pass. Before the step judged
// the evidence's completeness, this history, which shows the ReplicaSet
// settled, passed.
func TestConvergesOnAnIncompleteHistoryIsNotEvaluated(t *testing.T) {
	replicasets := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
	rs := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet",
		"metadata": map[string]any{"name": "web", "namespace": "ns", "resourceVersion": "5"},
		"spec":     map[string]any{"replicas": int64(3)}, "status": map[string]any{"replicas": int64(3)}}}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{replicasets: "ReplicaSetList"}, rs)
	w := watch.NewFake()
	dyn.PrependWatchReactor("replicasets", k8stesting.DefaultWatchReactor(w, nil))
	start := time.Now()
	h, stop, err := oracle.RecordSelected(context.Background(), dyn, replicasets, "ns", "")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	// The API server no longer has the recorder's resource version.
	w.Error(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version: 5 (9)"})
	for h.Incomplete() == nil {
		select {
		case <-h.Changed():
		case <-time.After(5 * time.Second):
			t.Fatal("the recorder never marked its history incomplete")
		}
	}
	_, r := from(context.Background())
	r.histories["replicasets"] = h
	want := judge.Replicas("ns/web", "spec.replicas", "status.replicas", "")
	c := oracle.Convergence{Since: start, Within: 50 * time.Millisecond, Window: 10 * time.Millisecond}
	if _, err := converges(context.Background(), h, want, c); err != nil {
		t.Fatalf("the history itself shows the ReplicaSet settled: %v", err)
	}
	_, err = r.assess(context.Background(), h, want, c)
	if !errors.Is(err, oracle.ErrNotEvaluated) || !strings.Contains(err.Error(), catalog.EvidenceComplete.ID) || !strings.Contains(err.Error(), "too old resource version") {
		t.Errorf("an incomplete history: %v; want not evaluated, naming %s and the recorder's expired watch", err, catalog.EvidenceComplete.ID)
	}
}
