package matrix

import (
	"slices"
	"testing"

	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/reports"
)

// TestLongestFirst checks the order a matrix starts its cells in: a bug
// the catalog marks Slow first, then the suites by their usual length,
// the rest as listed.
func TestLongestFirst(t *testing.T) {
	slow, ok := catalog.Lookup("finalizer-never-released")
	if !ok || !slow.Slow {
		t.Fatal("the catalog should mark finalizer-never-released Slow")
	}
	other, _ := catalog.Lookup("leak-cluster-child")
	cells := []reports.Cell{
		{Suite: "reconcile", Subject: "stack", Bug: &other},
		{Suite: "leader", Subject: "leader"},
		{Suite: "reconcile", Subject: "stack", Bug: &slow},
		{Suite: "lostevents", Subject: "workload"},
		{Suite: "reconcile", Subject: "composite"},
	}
	if got, want := longestFirst(cells), []int{2, 0, 4, 3, 1}; !slices.Equal(got, want) {
		t.Errorf("longestFirst = %v, want %v", got, want)
	}
}
