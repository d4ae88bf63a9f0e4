package judge

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/catalog"
	"github.com/steadystate-dev/steadystate/evidence"
	"github.com/steadystate-dev/steadystate/verdict"
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

// TestRecordedGeneratedSiblingsAreOneState re-judges the zoo's
// garbage-collector orphan subject recorded by `make zoo
// ZOO_SUBJECTS=endpointslice,gc-foreground,gc-orphan ZOO_RUNS=5` (gc-orphan
// run 5, the restart spec): web was deleted with propagationPolicy
// Orphan, the collector released both its pods, and heir, holding four
// identical pods, deleted two: one of its own and one adopted, where both
// reference runs deleted its own two. Which of equal pods survive is the
// ReplicaSet controller's choice among equally ranked pods, no part of the
// end state: held. Siblings that differ are still told apart: one of the
// pods with another label breaks it, naming the pods.
func TestRecordedGeneratedSiblingsAreOneState(t *testing.T) {
	read := func() *evidence.Evidence {
		return readEvidence(t, filepath.Join("gc-orphan", "steadystate-gc-orphan-restart-siblings.json"))
	}
	if got := judged(t, catalog.SteadySameEndState.ID, read()); got.Outcome != verdict.Held {
		t.Errorf("as recorded: %s %q, want held: heir keeps two of four identical pods either way", got.Outcome, got.Reason)
	}
	e := read()
	relabelled := false
	for _, r := range e.Histories["steady/pods"] {
		if r.Object == nil || r.Object["metadata"].(map[string]any)["name"] != "heir-zdm52" {
			continue
		}
		r.Object["metadata"].(map[string]any)["labels"] = map[string]any{"app": "web", "tier": "other"}
		relabelled = true
	}
	if !relabelled {
		t.Fatal("the recorded evidence has no pod heir-zdm52")
	}
	got := judged(t, catalog.SteadySameEndState.ID, e)
	if got.Outcome != verdict.Broken || !strings.Contains(got.Reason, "ReplicaSet/heir > Pod/heir-*: 0 objects in the reference, 1 after the faults") {
		t.Errorf("a kept pod with another label: %s %q, want broken naming heir's pods", got.Outcome, got.Reason)
	}
}
