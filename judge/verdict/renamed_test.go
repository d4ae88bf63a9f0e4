package verdict

import (
	"encoding/json"
	"slices"
	"testing"
)

// A record and a declaration written under the reconcile suite's former
// names read under its current ones.
func TestFormerNamesReadAsCurrent(t *testing.T) {
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
