package renamed

import "testing"

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
}
