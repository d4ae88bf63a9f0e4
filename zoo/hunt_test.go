package zoo_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/exploration/tally"
	"github.com/steadystate-dev/steadystate/verdict"
	"github.com/steadystate-dev/steadystate/zoo"
)

// TestHuntTally: an exploration's reference runs are no schedules, a
// skipped spec (past the budget) is none either; a broken schedule is a
// finding to triage with its kept schedule, a broken reference run one
// with no schedule; an error is counted apart; the hunt is clean only
// with schedules and neither.
func TestHuntTally(t *testing.T) {
	specs := []verdict.Spec{
		{Name: "Exploration " + tally.ReferenceSpec + " 1 of 2", Outcome: verdict.Passed},
		{Name: "Exploration " + tally.ReferenceSpec + " 2 of 2", Outcome: verdict.Passed},
		{Name: "Exploration schedule 01 (seed 7)", Outcome: verdict.Passed},
		{Name: "Exploration schedule 02 (seed 8)", Outcome: verdict.BrokenSpec, Broken: []string{"steadystate/recovers"}},
		{Name: "Exploration schedule 03 (seed 9)", Outcome: verdict.Error, Reason: "the fault proxy refused the rule"},
		{Name: "Exploration schedule 04 (seed 10)", Outcome: verdict.SkippedSpec},
	}
	r := zoo.HuntRow{Subject: "deployment", Capability: "steadyState", Seed: 1, Budget: time.Minute, Took: 2 * time.Minute, Dir: "/a"}
	zoo.HuntTally(&r, specs, "/a/explore/run")
	if r.Schedules != 3 || r.References != 2 || len(r.Findings) != 1 || len(r.Errors) != 1 || r.PerMinute() != 1.5 {
		t.Fatalf("row %+v", r)
	}
	if f := r.Findings[0]; !strings.HasSuffix(f.Schedule, "schedule.yaml") || !strings.HasPrefix(f.Schedule, "/a/explore/run/Exploration-schedule-02") || !strings.HasSuffix(f.Evidence, "history.txt") {
		t.Errorf("finding %+v", f)
	}
	var out bytes.Buffer
	if zoo.PrintHunt(&out, []zoo.HuntRow{r}) {
		t.Errorf("a hunt with a finding and an error is clean:\n%s", out.String())
	}
	for _, want := range []string{"| deployment | steadyState | 1 | 1m0s | 2m0s | 3 | 1.5 | 1 | 1 |", "finding (to triage): deployment: Exploration schedule 02 (seed 8) broke steadystate/recovers", "error: deployment: Exploration schedule 03 (seed 9): the fault proxy refused the rule"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("printed lacks %q:\n%s", want, out.String())
		}
	}

	clean := zoo.HuntRow{Subject: "job", Capability: "steadyState", Took: time.Minute}
	zoo.HuntTally(&clean, specs[:3], "/b")
	out.Reset()
	if !zoo.PrintHunt(&out, []zoo.HuntRow{clean}) {
		t.Errorf("a hunt of one passed schedule is not clean:\n%s", out.String())
	}
	none := zoo.HuntRow{Subject: "cronjob", Capability: "steadyState", Dir: "/c"}
	zoo.HuntTally(&none, specs[:2], "/c")
	out.Reset()
	if zoo.PrintHunt(&out, []zoo.HuntRow{none}) || !strings.Contains(out.String(), "error: cronjob: no schedule ran") {
		t.Errorf("a hunt where no schedule ran is clean:\n%s", out.String())
	}
	// A broken reference run is a finding with no schedule to replay.
	ref := zoo.HuntRow{Subject: "x"}
	zoo.HuntTally(&ref, []verdict.Spec{{Name: "Exploration " + tally.ReferenceSpec + " 1 of 2", Outcome: verdict.BrokenSpec, Broken: []string{"steadystate/settles"}}}, "/d")
	if len(ref.Findings) != 1 || ref.Findings[0].Schedule != "" || ref.Schedules != 0 {
		t.Errorf("a broken reference run: %+v", ref)
	}
}
