package testenv

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// TestAfterReplacementAllowsTheBindingsReplacement judges the Job
// controller's third storm round as recorded (fixtures/subjects/job.yaml):
// two pods deleted at 20:14:20, the controller's backoff "delay=5m18.99s"
// logged a second later, so the replacement came 5m20s after the last
// deletion. With replaceWithin 6m the storm's replacement wait passes; the
// convergence after it must allow the same, where the expectation timeout
// alone (5m, plus the 15s margin) made it a finding.
func TestAfterReplacementAllowsTheBindingsReplacement(t *testing.T) {
	last := time.Date(2026, 11, 25, 20, 14, 20, 0, time.UTC)
	h := oracle.NewHistory()
	add := func(at time.Time, pods int64) {
		o := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "web", "namespace": "ns"}, "status": map[string]any{"active": pods}}}
		h.Add(oracle.Event{At: at, Type: "MODIFIED", Key: "ns/web", Object: o})
	}
	add(last, 2)
	add(last.Add(5*time.Minute+20*time.Second), 4)
	four := func(s oracle.State) (bool, string) {
		n, _, _ := unstructured.NestedInt64(s["ns/web"].Object, "status", "active")
		return n == 4, "status.active is not 4"
	}
	now := last.Add(7 * time.Minute)
	saved := Current
	t.Cleanup(func() { Current = saved })
	Current = DefaultSettings

	if _, err := Recovery(last, 5*time.Minute).Check(h, four, now); err == nil {
		t.Fatal("the expectation timeout alone held a replacement 5m20s after the deletion; the case no longer shows the bound it guards")
	}
	c := AfterReplacement(last, 5*time.Minute, 6*time.Minute)
	if c.Within != 6*time.Minute+DefaultSettings.RecoveryMargin {
		t.Errorf("bound %s, want replaceWithin 6m plus the margin", c.Within)
	}
	if _, err := c.Check(h, four, now); err != nil {
		t.Errorf("a replacement within replaceWithin: %v", err)
	}
	if got := AfterReplacement(last, 5*time.Minute, 30*time.Second).Within; got != 5*time.Minute+DefaultSettings.RecoveryMargin {
		t.Errorf("with the default replaceWithin the bound is %s, want the expectation timeout's 5m15s", got)
	}
}
