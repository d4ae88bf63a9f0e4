package zoo_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/runs/exploration/tally"
	"github.com/steadystate-dev/steadystate/runs/zoo"
)

// TestHuntTally: an exploration's reference runs are no schedules, a
// skipped spec (past the budget) is none either; a broken schedule is a
// finding to triage with its kept schedule, a broken reference run one
// with no schedule; an error is counted apart; the hunt is clean only
// with schedules and neither.
func TestHuntTally(t *testing.T) {
	specs := []verdict.Spec{
		{Name: "Exploration " + tally.ReferenceSpec + " 1 of 2", Outcome: verdict.Passed, Seconds: 40},
		{Name: "Exploration " + tally.ReferenceSpec + " 2 of 2", Outcome: verdict.Passed, Seconds: 35},
		{Name: "Exploration schedule 01 (seed 7)", Outcome: verdict.Passed, Seconds: 20},
		{Name: "Exploration schedule 02 (seed 8)", Outcome: verdict.BrokenSpec, Broken: []string{"reconcile/recovers"}, Seconds: 30},
		{Name: "Exploration schedule 03 (seed 9)", Outcome: verdict.Error, Reason: "the fault proxy refused the rule", Seconds: 10.4},
		{Name: "Exploration schedule 04 (seed 10)", Outcome: verdict.SkippedSpec},
	}
	r := zoo.HuntRow{Subject: "deployment", Capability: "reconciledObjects", Seed: 1, Budget: time.Minute, Took: 2 * time.Minute, Dir: "/a"}
	zoo.HuntTally(&r, specs, "/a/explore/run")
	if r.Schedules != 3 || r.References != 2 || len(r.Findings) != 1 || len(r.Errors) != 1 || r.PerMinute() != 1.5 || r.InSchedules != 60400*time.Millisecond || r.InReferences != 75*time.Second {
		t.Fatalf("row %+v", r)
	}
	if f := r.Findings[0]; !strings.HasSuffix(f.Schedule, "schedule.yaml") || !strings.HasPrefix(f.Schedule, "/a/explore/run/Exploration-schedule-02") || !strings.HasSuffix(f.Evidence, "history.txt") {
		t.Errorf("finding %+v", f)
	}
	var out bytes.Buffer
	covered := r
	covered.Covered, covered.Possible = 31, 122
	if zoo.PrintHunt(&out, []zoo.HuntRow{covered}); !strings.Contains(out.String(), "| 2, 1m15s | 31 of 122 | 1 | 1 |") {
		t.Errorf("the coverage is not in the row:\n%s", out.String())
	}
	out.Reset()
	if zoo.PrintHunt(&out, []zoo.HuntRow{r}) {
		t.Errorf("a hunt with a finding and an error is clean:\n%s", out.String())
	}
	for _, want := range []string{"| deployment | reconciledObjects | 1 | 1m0s | 1 | 2m0s | 3 | 1.5 | 1m0s | 2, 1m15s | - | 1 | 1 |", "finding (to triage): deployment: Exploration schedule 02 (seed 8) broke reconcile/recovers", "error: deployment: Exploration schedule 03 (seed 9): the fault proxy refused the rule"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("printed lacks %q:\n%s", want, out.String())
		}
	}

	clean := zoo.HuntRow{Subject: "job", Capability: "reconciledObjects", Took: time.Minute}
	zoo.HuntTally(&clean, specs[:3], "/b")
	out.Reset()
	if !zoo.PrintHunt(&out, []zoo.HuntRow{clean}) {
		t.Errorf("a hunt of one passed schedule is not clean:\n%s", out.String())
	}
	none := zoo.HuntRow{Subject: "cronjob", Capability: "reconciledObjects", Dir: "/c"}
	zoo.HuntTally(&none, specs[:2], "/c")
	out.Reset()
	if zoo.PrintHunt(&out, []zoo.HuntRow{none}) || !strings.Contains(out.String(), "error: cronjob: no schedule ran") {
		t.Errorf("a hunt where no schedule ran is clean:\n%s", out.String())
	}
	// A broken reference run is a finding with no schedule to replay.
	ref := zoo.HuntRow{Subject: "x"}
	zoo.HuntTally(&ref, []verdict.Spec{{Name: "Exploration " + tally.ReferenceSpec + " 1 of 2", Outcome: verdict.BrokenSpec, Broken: []string{"reconcile/settles"}}}, "/d")
	if len(ref.Findings) != 1 || ref.Findings[0].Schedule != "" || ref.Schedules != 0 {
		t.Errorf("a broken reference run: %+v", ref)
	}
}

// fakeExplore is a steadystate program that explores as --parallel 2
// does: a report per suite process in explore/run/shard-1 and shard-2,
// the first with a reference run and a passed schedule, the second with
// another passed schedule; it keeps its arguments in ZOO_FAKE_ARGS.
const fakeExplore = `#!/bin/sh
echo "$@" > "$ZOO_FAKE_ARGS"
for k in 1 2; do mkdir -p "$ARTIFACTS/explore/run/shard-$k"; done
spec() { echo '{"LeafNodeType":"It","ContainerHierarchyTexts":["Exploration"],"LeafNodeText":"'"$1"'","State":"'"$2"'"}'; }
echo '[{"SuiteDescription":"explore","SuiteSucceeded":true,"SpecReports":['"$(spec "` + tally.ReferenceSpec + ` 1 of 2" passed),$(spec "schedule 01 (seed 1)" passed)"']}]' > "$ARTIFACTS/explore/run/shard-1/report.json"
echo '[{"SuiteDescription":"explore","SuiteSucceeded":true,"SpecReports":['"$(spec "schedule 02 (seed 2)" passed)"']}]' > "$ARTIFACTS/explore/run/shard-2/report.json"
`

// TestHuntSideBySide: a hunt of two suite processes asks explore for
// them and counts the schedules of both processes' reports; one that
// left a process's report out is the row's error.
func TestHuntSideBySide(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "steadystate")
	zooDir := filepath.Join(dir, "zoo")
	for _, err := range []error{os.WriteFile(prog, []byte(fakeExplore), 0o755), os.MkdirAll(zooDir, 0o755), os.WriteFile(filepath.Join(zooDir, "job.yaml"), nil, 0o644)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("ZOO_FAKE_ARGS", filepath.Join(dir, "args"))
	subjects, err := zoo.Subjects(zooDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	art := filepath.Join(dir, "hunt")
	if err := os.MkdirAll(art, 0o755); err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	cfg := zoo.HuntConfig{Capability: "reconciledObjects", Budget: time.Minute, Seed: 1, Parallel: 2, Pattern: "refused-once", Steadystate: prog, Artifacts: art}
	rows, err := zoo.Hunt(t.Context(), cfg, subjects, &progress)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Schedules != 2 || rows[0].References != 1 || rows[0].Err != "" || rows[0].Parallel != 2 {
		t.Fatalf("rows %+v\n%s", rows, progress.String())
	}
	if args, _ := os.ReadFile(filepath.Join(dir, "args")); !strings.Contains(string(args), "--parallel 2") || !strings.Contains(string(args), "--pattern refused-once") {
		t.Errorf("explore was asked %q, not for 2 processes drawing in pattern refused-once", args)
	}
	var out bytes.Buffer
	zoo.PrintHunt(&out, rows)
	if want := "| job | reconciledObjects (refused-once) | 1 | 1m0s | 2 |"; !strings.Contains(out.String(), want) {
		t.Errorf("printed lacks %q:\n%s", want, out.String())
	}

	cfg.SharedCluster = true
	if rows, err = zoo.Hunt(t.Context(), cfg, subjects, &progress); err != nil {
		t.Fatal(err)
	}
	if args, _ := os.ReadFile(filepath.Join(dir, "args")); !strings.Contains(string(args), "--parallel 2 --shared-cluster") {
		t.Errorf("explore was asked %q, not for 2 processes sharing one cluster", args)
	}
	out.Reset()
	zoo.PrintHunt(&out, rows)
	if want := "| job | reconciledObjects (refused-once) | 1 | 1m0s | 2, one cluster |"; !strings.Contains(out.String(), want) {
		t.Errorf("printed lacks %q:\n%s", want, out.String())
	}
	cfg.SharedCluster = false

	cfg.Parallel = 3
	rows, err = zoo.Hunt(t.Context(), cfg, subjects, &progress)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || !strings.Contains(rows[0].Err, "shard-3") || rows[0].Schedules != 2 {
		t.Errorf("a process that left no report is not the row's error, or the others' schedules were not counted: %+v", rows)
	}
}
