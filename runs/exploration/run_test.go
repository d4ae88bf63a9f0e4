package exploration

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/chaos/schedule"
	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/internal/config"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/reports"
	"github.com/steadystate-dev/steadystate/runs/exploration/tally"
)

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
		c := Run{Subject: subject}
		if err := c.resolveSubject(); err != nil {
			t.Fatalf("%s: %v", subject, err)
		}
		if got := c.File != ""; got != file {
			t.Errorf("%s read as a subject file: %v, want %v", subject, got, file)
		}
	}
}

// The exploration's result: a schedule that ended in an error, or a run in
// which no schedule ran, fails the command as a finding does, and the
// summary counts the errors and the steps not done. The exit code tells
// them apart: a finding 1 (even beside an error), an error or nothing run
// 3.
func TestExploreFailsOnErrorsAndOnNothingRun(t *testing.T) {
	notDone := types.ReportEntry{Name: tally.NotDoneEntry, Value: types.WrapEntryValue([]string{"step 1: scale-up after the next create of pods: not done: the subject made no create of pods within 8s"})}
	passed := verdict.Spec{Name: "schedule 1 (seed 7)", Outcome: verdict.Passed, Report: &types.SpecReport{ReportEntries: types.ReportEntries{notDone}}}
	errored := verdict.Spec{Name: "schedule 2 (seed 8)", Outcome: verdict.Error, Reason: "assumption explore/steps-acted did not hold: pod-deletion at 10:00:00.000 failed: no pod to delete"}
	skipped := verdict.Spec{Name: "schedule 3 (seed 9)", Outcome: verdict.SkippedSpec}
	reference := verdict.Spec{Name: "Exploration of a reconciledObjects subject " + tally.ReferenceSpec + " 1 of 2", Outcome: verdict.Passed}
	unsettled := verdict.Spec{Name: "Exploration of a reconciledObjects subject " + tally.ReferenceSpec + " 2 of 2", Outcome: verdict.BrokenSpec, Broken: []string{"reconcile/settles"}}
	broken := verdict.Spec{Name: "schedule 4 (seed 10)", Outcome: verdict.BrokenSpec, Broken: []string{"lostevents/no-overshoot"}, Report: &types.SpecReport{}}
	for _, tc := range []struct {
		name  string
		specs []verdict.Spec
		fails string // "" when the command succeeds
		code  int
		says  []string
	}{
		{"passed", []verdict.Spec{passed, skipped}, "", 0, []string{"1 schedule(s)", "0 error(s)", "1 step(s) of 1 schedule(s) not done", "where the 1 schedule(s)' time went"}},
		{"an error", []verdict.Spec{passed, errored}, "1 schedule(s) ended in an error", 3, []string{"2 schedule(s)", "1 error(s)", "error: schedule 2 (seed 8): assumption explore/steps-acted"}},
		{"only errors", []verdict.Spec{errored, errored}, "2 schedule(s) ended in an error", 3, []string{"2 error(s)"}},
		{"none ran", []verdict.Spec{skipped}, "no schedule ran", 3, []string{"0 schedule(s)"}},
		{"a finding", []verdict.Spec{passed, broken}, "found schedules that break properties", 1, []string{"1 finding(s), 0 error(s)"}},
		{"a finding beside an error", []verdict.Spec{broken, errored}, "found schedules that break properties", 1, []string{"1 finding(s), 1 error(s)"}},
		// A reconciledObjects run's reference runs are no schedules; one that
		// broke a property is a finding.
		{"references", []verdict.Spec{reference, passed}, "", 0, []string{"1 schedule(s) (after 1 fault-free reference run(s))"}},
		{"only references", []verdict.Spec{reference, reference}, "no schedule ran", 3, []string{"0 schedule(s) (after 2 fault-free reference run(s))"}},
		{"a reference broke", []verdict.Spec{reference, unsettled, passed}, "found schedules that break properties", 1, []string{"finding: Exploration of a reconciledObjects subject fault-free reference run 2 of 2 (no faults) broke reconcile/settles"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			dir := t.TempDir()
			err := summarise(&out, Run{}, dir, reports.Run{Specs: tc.specs, Dir: dir})
			if (err == nil) != (tc.fails == "") || (err != nil && !strings.Contains(err.Error(), tc.fails)) {
				t.Errorf("result %v, want failing with %q", err, tc.fails)
			}
			if got := cli.ExitCode(err); got != tc.code {
				t.Errorf("exit %d, want %d", got, tc.code)
			}
			for _, s := range tc.says {
				if !strings.Contains(out.String(), s) {
					t.Errorf("summary does not say %q:\n%s", s, out.String())
				}
			}
		})
	}
}

// Side by side: one process unless asked; more than one is refused
// where it cannot apply (elsewhere than local, with --first, a replay).
func TestExploreParallel(t *testing.T) {
	for _, tc := range []struct {
		name  string
		c     Run
		local bool
		want  int
		fails string
	}{
		{"local", Run{}, true, 1, ""},
		{"elsewhere", Run{}, false, 1, ""},
		{"first", Run{First: true}, true, 1, ""},
		{"replay", Run{Replay: "s.yaml"}, true, 1, ""},
		{"asked", Run{Parallel: 2}, true, 2, ""},
		{"asked elsewhere", Run{Parallel: 2}, false, 0, "only on PROVIDER=local"},
		{"asked with first", Run{Parallel: 2, First: true}, true, 0, "would not stop the others"},
		{"asked with a replay", Run{Parallel: 2, Replay: "s.yaml"}, true, 0, "a replay runs in one process"},
		{"negative", Run{Parallel: -1}, true, 0, "at least 1"},
		{"one cluster shared", Run{Parallel: 2, SharedCluster: true, Capability: schedule.Steady}, true, 2, ""},
		{"one cluster shared by one", Run{SharedCluster: true, Capability: schedule.Steady}, true, 0, "give --parallel 2 or more"},
		{"one cluster shared, another capability", Run{Parallel: 2, SharedCluster: true, Capability: schedule.Scalable}, true, 0, "the reconciledObjects capability only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c
			err := c.setParallel(tc.local)
			if (err == nil) != (tc.fails == "") || (err != nil && !strings.Contains(err.Error(), tc.fails)) {
				t.Fatalf("error %v, want %q", err, tc.fails)
			}
			if err == nil && c.Parallel != tc.want {
				t.Errorf("parallel %d, want %d", c.Parallel, tc.want)
			}
		})
	}
}

// The runs of processes side by side are summed: their schedules,
// findings and errors, the longest run's time and their peaks.
func TestExploreSummarisesShards(t *testing.T) {
	passed := verdict.Spec{Name: "schedule 1 (seed 7)", Outcome: verdict.Passed, Report: &types.SpecReport{}}
	errored := verdict.Spec{Name: "schedule 2 (seed 8)", Outcome: verdict.Error, Reason: "set-up timed out"}
	var out strings.Builder
	dir := t.TempDir()
	err := summarise(&out, Run{}, dir,
		reports.Run{Specs: []verdict.Spec{passed, passed}, Dir: dir + "/shard-1", Took: 2 * time.Minute, PeakMemory: 60 << 20},
		reports.Run{Specs: []verdict.Spec{passed, errored}, Dir: dir + "/shard-2", Took: 3 * time.Minute, PeakMemory: 70 << 20})
	if err == nil || !strings.Contains(err.Error(), "1 schedule(s) ended in an error") {
		t.Errorf("result %v, want the error counted", err)
	}
	for _, s := range []string{"4 schedule(s) in 3m0s (2 suite processes side by side, a cluster each), 1.3/min, 0 finding(s), 1 error(s)", "130 MB resident at most together", "where the 3 schedule(s)' time went"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("summary does not say %q:\n%s", s, out.String())
		}
	}
}

// The zoo's Deployment controller needs nodes: it is explored on a local
// cluster with simulated nodes when LOCAL_NODES is unset, and refused when
// LOCAL_NODES turns them off; the ResourceQuota controller, whose objects
// make no pods, is left to LOCAL_NODES.
func TestExploreGivesASubjectThatNeedsNodesSimulatedOnes(t *testing.T) {
	dir := t.TempDir()
	configure := func(subject, nodes string) (Run, error) {
		c := Run{Subject: filepath.Join("..", "..", "fixtures", "zoo", subject+".yaml")}
		return c, c.Configure(config.From(func(k string) string {
			return map[string]string{"ARTIFACTS": dir, "KUBE_BIN_DIR": dir, "LOCAL_NODES": nodes}[k]
		}))
	}
	c, err := configure("deployment", "")
	if err != nil || !c.Nodes.TurnOn || !slices.Contains(c.Matrix.Env, "LOCAL_NODES=on") {
		t.Errorf("needsNodes, LOCAL_NODES unset: err %v, simulated nodes %v, environment %q; want LOCAL_NODES=on", err, c.Nodes.TurnOn, c.Matrix.Env)
	}
	if _, err := configure("deployment", "0"); err == nil || !strings.Contains(err.Error(), "LOCAL_NODES=0 gives the local cluster none") {
		t.Errorf("needsNodes, LOCAL_NODES=0: err %v, want it refused", err)
	}
	if c, err := configure("resourcequota", ""); err != nil || c.Nodes.TurnOn || slices.Contains(c.Matrix.Env, "LOCAL_NODES=on") || c.Nodes.Warning != "" {
		t.Errorf("no needsNodes: err %v, simulated nodes %v, environment %q, warning %q; want them left to LOCAL_NODES, no warning", err, c.Nodes.TurnOn, c.Matrix.Env, c.Nodes.Warning)
	}
}

// A subject file that does not say it needs nodes, but whose objects make
// pods, is warned of on a local cluster without nodes, and not when
// LOCAL_NODES gives some.
func TestExploreWarnsOfPodsThatWouldStayPending(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "web.yaml")
	if err := os.WriteFile(path, []byte("apiVersion: steadystate.dev/v1alpha3\nkind: Subject\nname: web\nrun: {command: [/bin/true]}\n"+
		"capabilities:\n  reconciledObjects:\n    objects:\n    - {apiVersion: apps/v1, kind: Deployment, metadata: {name: web}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for nodes, want := range map[string]string{"": "Deployment/web", "off": "Deployment/web", "on": ""} {
		c := Run{Subject: path}
		err := c.Configure(config.From(func(k string) string {
			return map[string]string{"ARTIFACTS": dir, "KUBE_BIN_DIR": dir, "LOCAL_NODES": nodes}[k]
		}))
		if err != nil || (want == "") != (c.Nodes.Warning == "") || !strings.HasPrefix(c.Nodes.Warning, want) {
			t.Errorf("LOCAL_NODES=%q: err %v, warning %q, want one naming %q", nodes, err, c.Nodes.Warning, want)
		}
	}
}
