package judge

import (
	"slices"
	"testing"
)

// TestQualifiedConditionType: an ignore path may name a condition whose
// type is qualified (a DNS prefix and a slash, dots): its dots are not
// the path's, so it resolves to that condition and masks it alone.
func TestQualifiedConditionType(t *testing.T) {
	if got := fieldPath("status.conditions[example.com/Synced.v2].status"); !slices.Equal(got, []string{"status", "conditions[example.com/Synced.v2]", "status"}) {
		t.Fatalf("fieldPath: %q", got)
	}
	obj := map[string]any{"status": map[string]any{"conditions": []any{
		map[string]any{"type": "Ready", "status": "True"},
		map[string]any{"type": "example.com/Synced.v2", "status": "False"},
	}}}
	if !resolves(obj, fieldPath("status.conditions[example.com/Synced.v2].status")) {
		t.Error("the qualified condition does not resolve")
	}
	if resolves(obj, fieldPath("status.conditions[example.com/Other].status")) {
		t.Error("a qualified type no condition has resolves")
	}
	if !ignored("status.conditions[example.com/Synced.v2]", "status.conditions[example.com/Synced.v2].status") || ignored("status.conditions[example.com/Synced.v2]", "status.conditions[Ready].status") {
		t.Error("the qualified condition's ignore path masks the wrong fields")
	}
}
