package html

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// The page of one run says its result and names the properties it did
// not judge, in its header and in the spec's row.
func TestPageNamesWhatWasNotJudged(t *testing.T) {
	entry := func(r verdict.Record) types.ReportEntry {
		return types.ReportEntry{Name: verdict.EntryName, Value: types.WrapEntryValue(r)}
	}
	spec := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: "blocked", State: types.SpecStatePassed, RunTime: time.Second,
		LeafNodeLabels: verdict.Declarations(catalog.FgDeletingStatus, catalog.FgBlockerNamed),
		ReportEntries: []types.ReportEntry{
			entry(verdict.Record{Property: catalog.FgDeletingStatus, Outcome: verdict.Held}),
			entry(verdict.Record{Property: catalog.FgBlockerNamed, Outcome: verdict.NotBound, Reason: "the subject binds no blockerMessage"}),
		}}
	data, err := json.Marshal([]types.Report{{SuiteDescription: "Foreground", SuiteSucceeded: true, SpecReports: types.SpecReports{spec}}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "report.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, "e2e", dir); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`Result: <b>PASSED</b> — 1 property not judged (not bound: foreground/blocker-named)`,
		`1 of 2 declared properties judged; 1 property not judged`,
		`<td class="notjudged">not bound: foreground/blocker-named</td>`,
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the page lacks %s", want)
		}
	}
}
