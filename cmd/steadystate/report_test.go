package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

func TestReportShowsVerdictClasses(t *testing.T) {
	entry := func(p verdict.Property, o verdict.Outcome) types.ReportEntry {
		return types.ReportEntry{Name: verdict.EntryName, Value: types.WrapEntryValue(verdict.Record{Property: p, Outcome: o, Reason: "as recorded"})}
	}
	spec := func(text string, state types.SpecState, msg string, entries ...types.ReportEntry) types.SpecReport {
		return types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: text, State: state, Failure: types.Failure{Message: msg}, ReportEntries: entries}
	}
	write := func(specs ...types.SpecReport) string {
		data, err := json.Marshal([]types.Report{{SuiteDescription: "Lost events", SpecReports: specs}})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "report.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	run := func(path string) (string, int) {
		out, stderr, code := runCode(t, "report", path)
		return out + stderr, code
	}
	passed := spec("a", types.SpecStatePassed, "", entry(catalog.LostNoOvershoot, verdict.Held))
	broken := spec("b", types.SpecStateFailed, "...", entry(catalog.LostNoOvershoot, verdict.Broken))
	setup := spec("c", types.SpecStateFailed, "create the spec's namespace: connection refused")

	out, code := run(write(passed))
	if code != 0 || !strings.Contains(out, "e2e: 1 passed, 0 failed, 0 skipped (0 broken, 0 error)\ne2e: PASSED; no spec declares its properties") {
		t.Errorf("all passed: exit %d\n%s", code, out)
	}
	unbound := spec("d", types.SpecStatePassed, "", entry(catalog.FgDeletingStatus, verdict.Held), entry(catalog.FgBlockerNamed, verdict.NotBound))
	unbound.LeafNodeLabels = verdict.Declarations(catalog.FgDeletingStatus, catalog.FgBlockerNamed)
	out, code = run(write(unbound))
	for _, want := range []string{"not bound: foreground/blocker-named: as recorded", "e2e: PASSED — 1 property not judged (not bound: foreground/blocker-named); 1 of 2 declared properties judged"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("not bound: exit %d, output lacks %q:\n%s", code, want, out)
		}
	}
	out, code = run(write(passed, broken, setup))
	for _, want := range []string{"BROKEN", "broken: lostevents/no-overshoot", "ERROR", "failed outside any property: create the spec's namespace", "e2e: 1 passed, 2 failed, 0 skipped (1 broken, 1 error)", "e2e: NOT PASSED — 1 broken (findings), 1 error", "1 spec(s) broke a property (findings)"} {
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("mixed: exit %d, output lacks %q:\n%s", code, want, out)
		}
	}
	out, code = run(write(passed, setup))
	if code != 3 || !strings.Contains(out, "ended in an error (not a finding") || !strings.Contains(out, "e2e: ERROR — 0 broken (findings), 1 error") {
		t.Errorf("an error only: exit %d, want 3\n%s", code, out)
	}
	filtered := spec("e", types.SpecStateSkipped, "")
	out, code = run(write(filtered))
	if code != 3 || !strings.Contains(out, "e2e: ERROR — no spec passed: nothing was judged") {
		t.Errorf("nothing judged: exit %d, want 3\n%s", code, out)
	}
	if out, code = run("/nonexistent/report.json"); code != 2 || !strings.Contains(out, "read report") {
		t.Errorf("no report: exit %d, want 2\n%s", code, out)
	}
}

// JUnit as steadystate junit writes it: a <failure> is a finding, an
// <error> a harness error, and no spec that passed is nothing judged.
func TestReportJUnitExitCodes(t *testing.T) {
	write := func(cases string) string {
		path := filepath.Join(t.TempDir(), "junit.xml")
		if err := os.WriteFile(path, []byte(`<testsuites><testsuite name="Lost events">`+cases+`</testsuite></testsuites>`), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	passed := `<testcase name="[It] a" time="1"></testcase>`
	finding := `<testcase name="[It] b" time="1"><failure message="lostevents/no-overshoot broken"></failure></testcase>`
	harness := `<testcase name="[It] c" time="1"><error message="create the spec's namespace: connection refused"></error></testcase>`
	for _, tc := range []struct {
		name  string
		cases string
		code  int
	}{
		{"passed", passed, 0},
		{"a finding", passed + finding, 1},
		{"an error", passed + harness, 3},
		{"a finding beside an error", finding + harness, 1},
		{"nothing judged", `<testcase name="[It] d"><skipped message="filtered"></skipped></testcase>`, 3},
	} {
		if out, stderr, code := runCode(t, "report", write(tc.cases)); code != tc.code {
			t.Errorf("%s: exit %d, want %d\n%s%s", tc.name, code, tc.code, out, stderr)
		}
	}
}
