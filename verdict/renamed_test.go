package verdict

import (
	"encoding/json"
	"slices"
	"testing"
)

// What was written under the reconcile suite's former names reads under
// its current ones; other names are left alone.
func TestFormerNamesReadAsCurrent(t *testing.T) {
	for in, want := range map[string]string{
		"steadystate/settles": "reconcile/settles", "reconcile/settles": "reconcile/settles",
		"leader/one-writer": "leader/one-writer", "steadystate": "steadystate", "steadystates/x": "steadystates/x",
	} {
		if got := CurrentID(in); got != want {
			t.Errorf("CurrentID(%q) = %q, want %q", in, got, want)
		}
	}
	if CurrentSuite("steadystate") != "reconcile" || CurrentSuite("leader") != "leader" {
		t.Error("CurrentSuite")
	}
	if CurrentCapability("steadyState") != "reconciledObjects" || CurrentCapability("leaderElected") != "leaderElected" {
		t.Error("CurrentCapability")
	}
	var r Record
	if err := json.Unmarshal([]byte(`{"id":"steadystate/recovers","stage":"convergence","sentence":"s","outcome":"broken","reason":"why","at":"+1.000s"}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.ID != "reconcile/recovers" || r.Outcome != Broken || r.Reason != "why" || r.At != "+1.000s" || r.Sentence != "s" {
		t.Errorf("record read as %+v", r)
	}
	if got := Declared([]string{"judges:steadystate:settles", "judges:leader:one-writer"}); !slices.Equal(got, []string{"reconcile/settles", "leader/one-writer"}) {
		t.Errorf("declared %v", got)
	}
}
