package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/cluster/local/localtest"
	"github.com/steadystate-dev/steadystate/reports"
	"github.com/steadystate-dev/steadystate/suites/explore"
	"github.com/steadystate-dev/steadystate/verdict"
)

// A kept schedule replays through `steadystate explore --replay`: the
// lost create breaks the seeded bug's properties, the follower's shutdown
// the leader bug's, a successor made while its predecessor deletes the
// external-name bug's and a delete held by another finalizer the 422
// bug's, each on the property it breaks; the correct subjects pass the
// same schedules. A finding fails the command.
func TestExploreReplaysSchedules(t *testing.T) {
	localtest.RequireBinaries(t)
	schedules := filepath.Join("suites", "explore", "testdata")
	for _, tc := range []struct {
		name     string
		args     []string
		finding  bool
		contains string
	}{
		{"lost create, bug", []string{"--subject", "workload", "--bug", "expectations-never-expire", "--replay", filepath.Join(schedules, "lost-create.yaml")},
			true, "broke lostevents/converges-after-faults, lostevents/later-scale-acted-on"},
		{"lost create, correct", []string{"--subject", "workload", "--replay", filepath.Join(schedules, "lost-create.yaml")},
			false, "1 schedule(s)"},
		{"follower terminated, bug", []string{"--subject", "leader", "--bug", "start-leader-runnables-on-shutdown", "--replay", filepath.Join(schedules, "follower-terminated.yaml")},
			true, "broke leader/only-holder-writes"},
		{"follower terminated, correct", []string{"--subject", "leader", "--replay", filepath.Join(schedules, "follower-terminated.yaml")},
			false, "1 schedule(s)"},
		{"successor, bug", []string{"--subject", "composite", "--bug", "external-name-reuse", "--replay", filepath.Join(schedules, "successor.yaml")},
			true, "broke foreground/successor-ready, foreground/no-delete-in-use"},
		{"successor, correct", []string{"--subject", "composite", "--replay", filepath.Join(schedules, "successor.yaml")},
			false, "1 schedule(s)"},
		{"held delete, bug", []string{"--subject", "cluster", "--bug", "finalizer-while-deleting", "--replay", filepath.Join(schedules, "held-delete.yaml")},
			true, "broke finalizer/P3"},
		{"held delete, correct", []string{"--subject", "cluster", "--replay", filepath.Join(schedules, "held-delete.yaml")},
			false, "1 schedule(s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := command(t, t.TempDir(), append([]string{"explore"}, tc.args...)...)
			cmd.Dir = filepath.Join("..", "..")
			out, err := cmd.CombinedOutput()
			_, failed := err.(*exec.ExitError)
			if failed != tc.finding || !strings.Contains(string(out), tc.contains) || strings.Contains(string(out), "error:") {
				t.Errorf("exit error %v, output:\n%s\nwant a finding: %v, and %q", err, out, tc.finding, tc.contains)
			}
		})
	}
}

// A reference subject's name is not a subject file, even where a folder
// of that name exists (the checkout's cluster/); a regular file, or a
// name ending .yaml, is.
func TestExploreSubjectNames(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Mkdir("cluster", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("mine", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for subject, file := range map[string]bool{"cluster": false, "workload": false, "mine": true, "missing.yaml": true} {
		c := exploreConfig{subject: subject}
		if err := c.resolveSubject(); err != nil {
			t.Fatalf("%s: %v", subject, err)
		}
		if got := c.file != ""; got != file {
			t.Errorf("%s read as a subject file: %v, want %v", subject, got, file)
		}
	}
}

// The exploration's result: a schedule that ended in an error, or a run in
// which no schedule ran, fails the command as a finding does, and the
// summary counts the errors and the steps not done.
func TestExploreFailsOnErrorsAndOnNothingRun(t *testing.T) {
	notDone := types.ReportEntry{Name: explore.NotDoneEntry, Value: types.WrapEntryValue([]string{"step 1: scale-up after the next create of pods: not done: the subject made no create of pods within 8s"})}
	passed := verdict.Spec{Name: "schedule 1 (seed 7)", Outcome: verdict.Passed, Report: &types.SpecReport{ReportEntries: types.ReportEntries{notDone}}}
	errored := verdict.Spec{Name: "schedule 2 (seed 8)", Outcome: verdict.Error, Reason: "assumption explore/steps-acted did not hold: pod-deletion at 10:00:00.000 failed: no pod to delete"}
	skipped := verdict.Spec{Name: "schedule 3 (seed 9)", Outcome: verdict.SkippedSpec}
	for _, tc := range []struct {
		name  string
		specs []verdict.Spec
		fails string // "" when the command succeeds
		says  []string
	}{
		{"passed", []verdict.Spec{passed, skipped}, "", []string{"1 schedule(s)", "0 error(s)", "1 step(s) of 1 schedule(s) not done"}},
		{"an error", []verdict.Spec{passed, errored}, "1 schedule(s) ended in an error", []string{"2 schedule(s)", "1 error(s)", "error: schedule 2 (seed 8): assumption explore/steps-acted"}},
		{"only errors", []verdict.Spec{errored, errored}, "2 schedule(s) ended in an error", []string{"2 error(s)"}},
		{"none ran", []verdict.Spec{skipped}, "no schedule ran", []string{"0 schedule(s)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			err := summarise(&out, exploreConfig{}, reports.Run{Specs: tc.specs, Dir: "run"})
			if (err == nil) != (tc.fails == "") || (err != nil && !strings.Contains(err.Error(), tc.fails)) {
				t.Errorf("result %v, want failing with %q", err, tc.fails)
			}
			for _, s := range tc.says {
				if !strings.Contains(out.String(), s) {
					t.Errorf("summary does not say %q:\n%s", s, out.String())
				}
			}
		})
	}
}
