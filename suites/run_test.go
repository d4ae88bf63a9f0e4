package suites

import (
	"errors"
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/judge/catalog"
)

// Every suite the catalog names is compiled in, under that name, in the
// catalog's order.
func TestEveryCatalogSuiteIsCompiledIn(t *testing.T) {
	if len(All) != len(catalog.Suites) {
		t.Fatalf("%d suites compiled in, the catalog has %d", len(All), len(catalog.Suites))
	}
	for i, s := range catalog.Suites {
		if All[i].Name != s.Name || All[i].Register == nil || All[i].Title == "" {
			t.Errorf("suite %d: compiled in as %+v, the catalog names %q", i, All[i], s.Name)
		}
	}
}

// An unknown suite is refused with the list of suites, before Ginkgo is
// touched (Run may be called once per process).
func TestRunRefusesAnUnknownSuite(t *testing.T) {
	_, err := Run("nope", nil)
	if !errors.Is(err, ErrFlags) {
		t.Fatalf("Run(nope) = %v, want ErrFlags", err)
	}
	if want := "the suites are lostevents, leader, foreground, finalizer, reconcile"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not list the suites (%q)", err, want)
	}
}

// make e2e runs every catalog suite and the control plane's, each found
// by its name, as `steadystate suite NAME` finds it.
func TestE2ERunsTheCatalogsSuitesAndTheControlPlanes(t *testing.T) {
	var names []string
	for _, s := range E2E() {
		if got, ok := Lookup(s.Name); !ok || got.Title != s.Title || got.Register == nil {
			t.Errorf("suite %s: Lookup = %+v, %v", s.Name, got, ok)
		}
		names = append(names, s.Name)
	}
	if want := "lostevents leader foreground finalizer reconcile controlplane"; strings.Join(names, " ") != want {
		t.Errorf("e2e runs %q, want %q", names, want)
	}
	if len(All) != len(catalog.Suites) {
		t.Errorf("E2E changed All: %d suites", len(All))
	}
}

// `steadystate suite reconcile`, the reconcile suite's former name, is
// the reconcile suite.
func TestFormerSuiteName(t *testing.T) {
	if s, ok := Lookup("steadystate"); !ok || s.Name != "reconcile" {
		t.Errorf("Lookup(steadystate) = %+v, %v", s, ok)
	}
}
