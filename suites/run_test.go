package suites

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// Every suite the catalog names is compiled in, under that name, in the
// catalog's order.
func TestEveryCatalogSuiteIsCompiledIn(t *testing.T) {
	if len(All) != len(catalog.Suites) {
		t.Fatalf("%d suites compiled in, the catalog has %d", len(All), len(catalog.Suites))
	}
	for i, s := range catalog.Suites {
		if All[i].Name != s.Name || All[i].Register == nil && All[i].Flags == nil || All[i].Title == "" {
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
		if got, ok := Lookup(s.Name); !ok || got.Title != s.Title || got.Register == nil && got.Flags == nil {
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

// A suite run in parts takes the part flag its parts are started with.
func TestSuitesInPartsTakeThePartFlag(t *testing.T) {
	for _, s := range All {
		if s.Parts <= 1 {
			continue
		}
		fs := flag.NewFlagSet(s.Name, flag.ContinueOnError)
		if s.Flags == nil || s.Flags(fs) == nil || fs.Lookup(testenv.PartFlag) == nil {
			t.Errorf("suite %s runs in %d parts but takes no -%s flag", s.Name, s.Parts, testenv.PartFlag)
		}
	}
}

// Each part of the reconcile suite runs the two clean runs first, then
// its share of the faulted runs, in the file's order; the parts together
// run each faulted run once. A dry run of each part (Ginkgo keeps one
// suite per process: this test's binary again, in a child) lists them.
func TestReconcilePartsRunTheCleanRunsFirst(t *testing.T) {
	if part := os.Getenv("STEADYSTATE_TEST_DRY_RUN_PART"); part != "" {
		args := []string{"-ginkgo.dry-run", "-ginkgo.json-report=" + os.Getenv("STEADYSTATE_TEST_REPORT")}
		if part != "whole" {
			args = append(args, "-"+testenv.PartFlag+"="+part)
		}
		if _, err := Run("reconcile", args); err != nil {
			t.Fatal(err)
		}
		return
	}
	specs := func(part string) []string {
		report := filepath.Join(t.TempDir(), "report.json")
		cmd := exec.Command(os.Args[0], "-test.run=^TestReconcilePartsRunTheCleanRunsFirst$")
		cmd.Env = append(os.Environ(), "STEADYSTATE_TEST_DRY_RUN_PART="+part, "STEADYSTATE_TEST_REPORT="+report)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("part %s: %v\n%s", part, err, out)
		}
		b, err := os.ReadFile(report)
		if err != nil {
			t.Fatal(err)
		}
		var rs []types.Report
		if err := json.Unmarshal(b, &rs); err != nil || len(rs) != 1 {
			t.Fatalf("part %s: report %v, %d suites", part, err, len(rs))
		}
		var out []string
		for _, s := range rs[0].SpecReports {
			if s.LeafNodeType == types.NodeTypeIt {
				out = append(out, s.LeafNodeText)
			}
		}
		return out
	}
	whole := specs("whole")
	if len(whole) != 8 {
		t.Fatalf("the whole suite runs %d specs, want 8: %q", len(whole), whole)
	}
	clean := whole[:2]
	for _, s := range clean {
		if !strings.Contains(s, "settles") || strings.Contains(s, "restart") {
			t.Fatalf("the whole suite does not start with its clean runs: %q", whole)
		}
	}
	var faulted []string
	for _, part := range []string{"1/2", "2/2"} {
		got := specs(part)
		if len(got) < 3 || !slices.Equal(got[:2], clean) {
			t.Fatalf("part %s runs %q, want the clean runs %q first", part, got, clean)
		}
		faulted = append(faulted, got[2:]...)
	}
	slices.SortStableFunc(faulted, func(a, b string) int { return slices.Index(whole, a) - slices.Index(whole, b) })
	if !slices.Equal(faulted, whole[2:]) {
		t.Errorf("the parts run the faulted runs %q, want each of %q once", faulted, whole[2:])
	}
}
