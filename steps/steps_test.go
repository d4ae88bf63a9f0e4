package steps

import (
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/suites/judge"
	"github.com/steadystate-dev/steadystate/suites/oracle"
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
