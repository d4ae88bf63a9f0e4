package zoo_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/runs/exploration/tally"
	"github.com/steadystate-dev/steadystate/runs/zoo"
)

// TestFindingFiles: every kept finding loads, its subject file, schedule
// and page are there, and its schedule names the properties it breaks.
func TestFindingFiles(t *testing.T) {
	names, err := zoo.FindingNames("../../fixtures/zoo/findings")
	if err != nil || len(names) == 0 {
		t.Fatalf("findings %v, %v", names, err)
	}
	for _, n := range names {
		f, err := zoo.LoadFinding("../../fixtures/zoo/findings", "../..", n)
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		if len(f.Breaks) == 0 || f.Replays < f.AtLeast {
			t.Errorf("%s: %+v", n, f)
		}
	}
}

// TestLoadFindingRefuses: an empty or unknown name is refused naming the
// findings; a file missing a field or naming a file that is not there is
// refused naming it.
func TestLoadFindingRefuses(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "b.yaml"), "subject: nope.yaml\nschedule: s.yaml\nreplays: 10\natLeast: 9\npage: p.md\n", 0o644)
	writeFile(t, filepath.Join(dir, "a.yaml"), "subject: s.yaml\nreplays: 10\natLeast: 9\n", 0o644)
	writeFile(t, filepath.Join(dir, "c.yaml"), "subject: s.yaml\nschedule: s.yaml\nreplays: 3\natLeast: 9\npage: p.md\n", 0o644)
	writeFile(t, filepath.Join(dir, "d.yaml"), "subjects: s.yaml\n", 0o644)
	for name, want := range map[string]string{
		"":     `FINDING="" is not a finding of ` + dir + "; give one of: a, b, c, d",
		"nope": `FINDING="nope" is not a finding of ` + dir + "; give one of: a, b, c, d",
		"a":    "give subject, schedule and page",
		"b":    "nope.yaml: no such file",
		"c":    "replays 3, atLeast 9",
		"d":    `unknown field "subjects"`,
	} {
		_, err := zoo.LoadFinding(dir, dir, name)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("finding %q: %v, want %q", name, err, want)
		}
	}
}

// TestTally: the replays are counted per property broken; the
// fault-free reference runs and skipped specs are no replays; a replay
// that broke other properties than the schedule's does not count as
// reproducing it; an error keeps the finding from reproducing.
func TestTally(t *testing.T) {
	both := []string{"reconcile/recovers", "reconcile/same-end-state"}
	specs := []verdict.Spec{
		{Name: "reconciledObjects " + tally.ReferenceSpec + " 1", Outcome: verdict.Passed},
		{Name: "schedule 01", Outcome: verdict.BrokenSpec, Broken: both},
		{Name: "schedule 02", Outcome: verdict.BrokenSpec, Broken: []string{"reconcile/same-end-state", "reconcile/recovers"}},
		{Name: "schedule 03", Outcome: verdict.BrokenSpec, Broken: []string{"reconcile/recovers"}},
		{Name: "schedule 04", Outcome: verdict.Passed},
		{Name: "schedule 05", Outcome: verdict.SkippedSpec},
	}
	f := zoo.Finding{Name: "x", Breaks: both, AtLeast: 2}
	repro := zoo.Tally(specs, both)
	if repro.Replays != 4 || repro.Reproduced != 2 || repro.Held != 1 || repro.Errors != 0 ||
		repro.Broken["reconcile/recovers"] != 3 || repro.Broken["reconcile/same-end-state"] != 2 {
		t.Fatalf("tally %+v", repro)
	}
	var out bytes.Buffer
	if !repro.Print(&out, f) || !strings.Contains(out.String(), "reconcile/recovers broken in 3 of 4") ||
		!strings.Contains(out.String(), "x: reproduced (2 of 4 replays, at least 2 asked") {
		t.Errorf("printed:\n%s", out.String())
	}
	specs = append(specs, verdict.Spec{Name: "schedule 06", Outcome: verdict.Error, Reason: "the cluster did not start"})
	out.Reset()
	if zoo.Tally(specs, both).Print(&out, f) || !strings.Contains(out.String(), "error: the cluster did not start") {
		t.Errorf("an error reproduced it:\n%s", out.String())
	}
}
