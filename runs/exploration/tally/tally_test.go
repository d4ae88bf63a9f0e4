package tally_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/runs/exploration/tally"
)

// A run's reference runs are told from its schedules by their names; a
// skipped spec (past the budget) ran not; a schedule is kept beside its
// evidence, a reference run has no schedule.
func TestSpecs(t *testing.T) {
	specs := []verdict.Spec{
		{Name: "Exploration " + tally.ReferenceSpec + " 1 of 2", Outcome: verdict.BrokenSpec},
		{Name: "Exploration schedule 01 (seed 7)", Outcome: verdict.Error},
		{Name: "Exploration schedule 02 (seed 8)", Outcome: verdict.SkippedSpec},
	}
	got := tally.Specs(specs, "/run")
	want := []tally.Spec{
		{Spec: specs[0], Reference: true, Evidence: "/run/Exploration-fault-free-reference-run-1-of-2/history.txt"},
		{Spec: specs[1], Evidence: "/run/Exploration-schedule-01-seed-7/history.txt", Schedule: "/run/Exploration-schedule-01-seed-7/schedule.yaml"},
	}
	if !slices.EqualFunc(got, want, func(a, b tally.Spec) bool {
		return a.Name == b.Name && a.Reference == b.Reference && a.Evidence == b.Evidence && a.Schedule == b.Schedule
	}) {
		t.Errorf("specs %+v, want %+v", got, want)
	}
	if !tally.IsReference(specs[0].Name) || tally.IsReference(specs[1].Name) {
		t.Error("reference runs told wrong from schedules")
	}
}

// A schedule's steps not done are read from its report as the suite made
// it and as read back from its JSON; a report without them has none.
func TestNotDone(t *testing.T) {
	steps := []string{"step 2: scale-up after the next create of pods: not done: no create of pods"}
	made := types.SpecReport{ReportEntries: types.ReportEntries{
		{Name: "schedule", Value: types.WrapEntryValue("not the steps")},
		{Name: tally.NotDoneEntry, Value: types.WrapEntryValue(steps)},
	}}
	data, err := json.Marshal(made)
	if err != nil {
		t.Fatal(err)
	}
	var read types.SpecReport
	if err := json.Unmarshal(data, &read); err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]types.SpecReport{"made": made, "read back": read} {
		if got := tally.NotDone(r); !slices.Equal(got, steps) {
			t.Errorf("%s: not done %q, want %q", name, got, steps)
		}
	}
	if got := tally.NotDone(types.SpecReport{}); got != nil {
		t.Errorf("no entry: not done %q, want none", got)
	}
}

// A run's coverage is the union of its schedules' acted combinations, the
// processes together, read from reports as made and as read back from
// their JSON; reference runs and reports without the entries add nothing.
func TestCoverage(t *testing.T) {
	report := func(covered []string, possible int, readBack bool) *types.SpecReport {
		r := types.SpecReport{ReportEntries: types.ReportEntries{
			{Name: tally.CoveredEntry, Value: types.WrapEntryValue(covered)},
			{Name: tally.PossibleEntry, Value: types.WrapEntryValue(possible)},
		}}
		if readBack {
			data, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			r = types.SpecReport{}
			if err := json.Unmarshal(data, &r); err != nil {
				t.Fatal(err)
			}
		}
		return &r
	}
	spec := func(name string, r *types.SpecReport) tally.Spec {
		return tally.Spec{Spec: verdict.Spec{Name: name, Report: r}, Reference: tally.IsReference(name)}
	}
	specs := []tally.Spec{
		spec("schedule 1", report([]string{"partition/-/settled", "answer-500/services/change"}, 122, false)),
		spec("schedule 2", report([]string{"answer-500/services/change", "stall/pods/settled"}, 122, true)),
		spec(tally.ReferenceSpec+" 1 of 2", report([]string{"not/a/schedule"}, 500, false)),
		spec("schedule 3", &types.SpecReport{}),
		spec("schedule 4", nil),
	}
	if covered, possible := tally.Coverage(specs); covered != 3 || possible != 122 {
		t.Errorf("coverage %d of %d, want 3 of 122", covered, possible)
	}
	if covered, possible := tally.Coverage(nil); covered != 0 || possible != 0 {
		t.Errorf("no specs: coverage %d of %d, want none", covered, possible)
	}
}
