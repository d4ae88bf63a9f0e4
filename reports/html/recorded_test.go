package html

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// Recorded evidence of failing leader runs (copies of judge's testdata):
// the reference leader's start-leader-runnables-on-shutdown bug, whose
// violation comes in the last 3% of a 1.07 s run, and controller-runtime
// v0.17.2, whose replicas hold the Lease under an identity of their own.
const (
	startOnShutdown = "../testdata/evidence/leader-start-on-shutdown-follower-shutdown.json"
	crShutdown      = "../testdata/evidence/upstream-controller-runtime-v0.17.2-follower-shutdown.json"
)

// runOf writes a run folder of one spec from the recorded evidence at
// path: a report.json whose spec failed on the evidence's records, as a
// suite writes it, and the evidence kept below it.
func runOf(t *testing.T, path string) string {
	t.Helper()
	e, err := evidence.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	var entries []types.ReportEntry
	for _, r := range e.Records {
		entries = append(entries, types.ReportEntry{Name: verdict.EntryName, Value: types.WrapEntryValue(r)})
	}
	spec := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: e.Spec, State: types.SpecStateFailed,
		StartTime: e.Start, EndTime: e.End, RunTime: e.End.Sub(e.Start), ReportEntries: entries}
	data, err := json.Marshal([]types.Report{{SuiteDescription: "Leader election", StartTime: e.Start, SpecReports: types.SpecReports{spec}}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "spec"), 0o755); err != nil {
		t.Fatal(err)
	}
	for file, content := range map[string][]byte{"report.json": data, filepath.Join("spec", evidence.FileName): raw} {
		if err := os.WriteFile(filepath.Join(dir, file), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// pageOf is the page of runOf(path).
func pageOf(t *testing.T, path string) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, "steadystate: _artifacts", runOf(t, path)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
