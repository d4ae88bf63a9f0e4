package exploration

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/steadystate-dev/steadystate/chaos/schedule"
	"github.com/steadystate-dev/steadystate/cluster"
	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/fixtures"
	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/internal/config"
	"github.com/steadystate-dev/steadystate/internal/renamed"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/reports"
	"github.com/steadystate-dev/steadystate/runs/exploration/phases"
	"github.com/steadystate-dev/steadystate/runs/exploration/shrink"
	"github.com/steadystate-dev/steadystate/runs/exploration/tally"
	"github.com/steadystate-dev/steadystate/runs/matrix"
	"github.com/steadystate-dev/steadystate/subjectfile"
)

// Run is an exploration run against one subject.
type Run struct {
	// Subject is a subject's name or a subject file as given; File is the
	// subject file's absolute path when it is one (Resolve). Bug is a
	// seeded bug of a reference subject, Capability the one explored.
	Subject, File, Bug, Capability string
	// Budget is how long new schedules may start; Seed the run's seed.
	Budget time.Duration
	Seed   uint64
	// Replay is a schedule file to run again, Repeat times, instead of
	// drawing schedules; Scheduled is its schedule (Resolve).
	Replay    string
	Repeat    int
	Scheduled schedule.Schedule
	// Confirm is how many replays in a row a shrink candidate must break.
	Confirm int
	// Shrink reduces the replayed schedule; First stops at the first
	// finding.
	Shrink, First bool
	// Pattern draws every schedule in that one of schedule.Patterns; ""
	// the mix of Sieve's three.
	Pattern string
	// Parallel is how many suite processes share the drawn schedules,
	// side by side, each with a cluster of its own (a replay runs in
	// one).
	Parallel int
	// SharedCluster has the Parallel processes share one cluster
	// instead, each schedule's subject confined to its namespace: the
	// first process starts the cluster, the others use it (reconciledObjects
	// only, whose objects are namespaced).
	SharedCluster bool
	// Version is the local control plane's (KUBE_VERSION); BuildBins
	// says it is built first when missing (no KUBE_BIN_DIR given).
	Version   string
	BuildBins bool
	// UpstreamDir is the folder of the upstream releases a subject file
	// may name ({{.UpstreamDir}}), as for conform.
	UpstreamDir string
	// Matrix runs the exploration suite, a cell of one, below its Root.
	Matrix matrix.Run
	// needsNodes and podMaker are the subject file's run.needsNodes and
	// first object that makes pods (subjectfile.PodMaker); Nodes is what
	// the run does about simulated nodes for them (cluster.NodesFor).
	needsNodes bool
	podMaker   string
	Nodes      cluster.Nodes
}

// Configure completes the run from the settings e: the upstream folder,
// the subject and capability (Resolve), the local control plane
// (KUBE_VERSION; built first unless KUBE_BIN_DIR is given) and the
// matrix run of its one cell, below ARTIFACTS/explore.
func (c *Run) Configure(e config.Settings) error {
	var err error
	if c.UpstreamDir, err = e.UpstreamRoot(); err != nil {
		return err
	}
	if err := c.Resolve(); err != nil {
		return err
	}
	c.Version = e.KubeVersion
	local := e.Provider == "" || e.Provider == "local"
	c.BuildBins = local && e.KubeBinDir == ""
	if err := c.setParallel(local); err != nil {
		return err
	}
	if c.Matrix, err = matrix.New(e, "explore", "exploration", "", 1); err != nil {
		return err
	}
	c.Matrix.Progress = true
	c.Matrix.Env = append(c.Matrix.Env, "UPSTREAM_DIR="+c.UpstreamDir)
	if c.Nodes, err = cluster.NodesFor(cmp.Or(c.File, c.Subject), e.Provider, e.LocalNodes, c.needsNodes, c.podMaker); err != nil {
		return err
	}
	if c.Nodes.TurnOn {
		c.Matrix.Env = append(c.Matrix.Env, "LOCAL_NODES=on")
	}
	return nil
}

// setParallel checks Parallel and sets its default, one process: side by
// side (--parallel N, the local provider only, a control plane each) is
// asked for, not assumed, until runs side by side on this machine's two
// cores are shown to raise no false alarm on the correct reference modes.
// A replay, and a run with --first (the first finding of one process
// stops it, not the others), run in one process.
func (c *Run) setParallel(local bool) error {
	switch {
	case c.Parallel < 0:
		return fmt.Errorf("%w: --parallel %d: at least 1", cli.ErrUsage, c.Parallel)
	case c.Parallel > 1 && !local:
		return fmt.Errorf("%w: --parallel %d: schedules run side by side only on PROVIDER=local (a control plane each)", cli.ErrUsage, c.Parallel)
	case c.Parallel > 1 && c.Replay != "":
		return fmt.Errorf("%w: --parallel %d: a replay runs in one process; drop --parallel", cli.ErrUsage, c.Parallel)
	case c.Parallel > 1 && c.First:
		return fmt.Errorf("%w: --parallel %d with --first: one process's first finding would not stop the others; drop one", cli.ErrUsage, c.Parallel)
	case c.Parallel == 0:
		c.Parallel = 1
	}
	switch {
	case !c.SharedCluster:
	case c.Parallel < 2:
		return fmt.Errorf("%w: --shared-cluster shares one cluster among the --parallel processes: give --parallel 2 or more", cli.ErrUsage)
	case c.Capability != schedule.Steady:
		return fmt.Errorf("%w: --shared-cluster explores the %s capability only (its subject is confined to its namespace), not %s: drop --shared-cluster", cli.ErrUsage, schedule.Steady, c.Capability)
	}
	return nil
}

// Resolve tells a subject file from a subject's name, reads the replayed
// schedule, and settles the capability explored: the one asked for, the
// replayed schedule's, or the subject's first that exploration drives.
func (c *Run) Resolve() error {
	c.Capability = renamed.CurrentCapability(c.Capability)
	if err := c.resolveSubject(); err != nil {
		return err
	}
	if c.Replay != "" {
		var err error
		if c.Scheduled, err = schedule.Load(c.Replay); err != nil {
			return err
		}
		if c.Capability != "" && c.Capability != c.Scheduled.Capability {
			return fmt.Errorf("%s exercises %s, not --capability %s", c.Replay, c.Scheduled.Capability, c.Capability)
		}
		c.Capability = c.Scheduled.Capability
		if c.Shrink && c.Scheduled.Breaks == "" {
			return fmt.Errorf("%s names no property it breaks (breaks:): --shrink keeps a schedule breaking the same ones; shrink a schedule explore kept", c.Replay)
		}
	}
	bound, err := c.capabilities()
	if err != nil {
		return err
	}
	if c.Capability == "" {
		c.Capability = bound[0]
	}
	if !slices.Contains(bound, c.Capability) {
		return fmt.Errorf("subject %s has no capability %s that exploration drives: it has %s", c.Subject, c.Capability, strings.Join(bound, ", "))
	}
	return nil
}

// resolveSubject tells a subject file from a subject's name, and refuses a
// bug the subject has not. A subject file is a regular file or a name
// ending .yaml: in the checkout, "cluster" (a subject) is also a folder.
func (c *Run) resolveSubject() error {
	if fi, err := os.Stat(c.Subject); (err == nil && fi.Mode().IsRegular()) || strings.HasSuffix(c.Subject, ".yaml") {
		abs, err := filepath.Abs(c.Subject)
		c.File = abs
		if c.Bug != "" {
			return fmt.Errorf("--bug %s applies to the reference subjects only, not to the subject file %s", c.Bug, c.Subject)
		}
		return err
	}
	if c.Bug == "" {
		return nil
	}
	if b, ok := catalog.Lookup(c.Bug); !ok || b.Subject != c.Subject {
		return fmt.Errorf("--bug %q is not a seeded bug of subject %s: see `steadystate catalog`", c.Bug, c.Subject)
	}
	return nil
}

// capabilities are the subject's capabilities that exploration drives.
func (c *Run) capabilities() ([]string, error) {
	var bound []string
	switch {
	case c.File != "":
		f, err := subjectfile.Load(c.File, subjectfile.Options{FromImage: true, UpstreamDir: c.UpstreamDir})
		if err != nil {
			return nil, err
		}
		bound, c.needsNodes, c.podMaker = f.Capabilities.Bound(), f.Run.NeedsNodes, f.PodMaker()
	case slices.Contains(catalog.SubjectNames(), c.Subject):
		for _, s := range catalog.Suites {
			if slices.Contains(s.Subjects(), c.Subject) {
				bound = append(bound, s.Capability)
			}
		}
	default:
		data, err := fixtures.Subjects.ReadFile("subjects/" + c.Subject + ".yaml")
		if err != nil {
			return nil, fmt.Errorf("--subject %s is neither a subject file nor a subject exploration drives: use workload, leader, composite, cluster, stack, replicaset, statefulset or a subject file", c.Subject)
		}
		f, err := subjectfile.Parse(data, c.Subject, subjectfile.Options{FromImage: true})
		if err != nil {
			return nil, err
		}
		bound, c.needsNodes = f.Capabilities.Bound(), f.Run.NeedsNodes
	}
	bound = slices.DeleteFunc(bound, func(b string) bool { return !slices.Contains(schedule.Explorable, b) })
	if len(bound) == 0 {
		return nil, fmt.Errorf("subject %s has no capability exploration drives (%s)", c.Subject, strings.Join(schedule.Explorable, ", "))
	}
	return bound, nil
}

// suiteArgs are the exploration suite's flags for c, replaying the
// schedule file replay repeat times when it is set.
func (c Run) suiteArgs(replay string, repeat int) []string {
	args := []string{"-steadystate.explore.capability=" + c.Capability, "-steadystate.explore.seed=" + strconv.FormatUint(c.Seed, 10),
		"-steadystate.explore.budget=" + c.Budget.String(), "-ginkgo.timeout=" + (c.Budget + 30*time.Minute).String()}
	if c.First {
		args = append(args, "-steadystate.explore.first")
	}
	if c.Pattern != "" {
		args = append(args, "-steadystate.explore.pattern="+c.Pattern)
	}
	if replay != "" {
		abs, _ := filepath.Abs(replay)
		args = append(args, "-steadystate.explore.replay="+abs, "-steadystate.explore.repeat="+strconv.Itoa(repeat))
	}
	return args
}

// runSuite runs the exploration suite once in dir (emptied first).
func (c Run) runSuite(ctx context.Context, cell reports.Cell, dir string, args []string, stderr io.Writer) reports.Run {
	return c.runSuiteOn(ctx, cell, dir, 1, args, stderr)
}

// runSuiteOn runs the exploration suite once in dir (emptied first), as
// worker w (its kind cluster's name).
func (c Run) runSuiteOn(ctx context.Context, cell reports.Cell, dir string, w int, args []string, stderr io.Writer) reports.Run {
	if err := os.RemoveAll(dir); err != nil {
		return reports.Run{Err: err.Error()}
	}
	cr := c.Matrix.CellRun(cell, dir, w, stderr)
	cr.StatusOnly, cr.Args = true, args
	return matrix.RunCell(ctx, cr)
}

// runShards runs the drawn schedules in c.Parallel suite processes side
// by side, each in a folder of its own below dir (shard-1, ...) with a
// cluster of its own, each the schedules i with i mod Parallel its
// share: the same schedules as one process draws, more of them within
// the budget. The runs come back in shard order.
func (c Run) runShards(ctx context.Context, cell reports.Cell, dir string, stderr io.Writer) []reports.Run {
	if err := os.RemoveAll(dir); err != nil {
		return []reports.Run{{Err: err.Error()}}
	}
	// A reconciledObjects run's processes make its two fault-free reference
	// runs once between them, on two clusters, through this folder.
	var share []string
	if c.Capability == schedule.Steady {
		shared := filepath.Join(dir, "references")
		if err := os.MkdirAll(shared, 0o755); err != nil {
			return []reports.Run{{Err: err.Error()}}
		}
		share = []string{"-steadystate.explore.shared-references=" + shared}
	}
	// With a shared cluster, the first process starts it and the
	// others use it, through this folder.
	clusterDir := filepath.Join(dir, "cluster")
	runs := make([]reports.Run, c.Parallel)
	var wg sync.WaitGroup
	for i := range c.Parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := append(c.suiteArgs("", 0), "-steadystate.explore.shard="+strconv.Itoa(i), "-steadystate.explore.shards="+strconv.Itoa(c.Parallel))
			args = append(args, share...)
			if c.SharedCluster {
				args = append(args, "-steadystate.shared-cluster="+clusterDir)
				if i == 0 {
					args = append(args, "-steadystate.shared-cluster-owner")
				}
			}
			runs[i] = c.runSuiteOn(ctx, cell, filepath.Join(dir, fmt.Sprintf("shard-%d", i+1)), i+1, args, stderr)
		}()
	}
	wg.Wait()
	return runs
}

// summarise prints the run's schedules, findings and errors, and the
// steps not done. A finding is the command's failure; so is a schedule
// that ended in an error (its verdict is unknown) and a run in which no
// schedule ran. A reconciledObjects run's fault-free reference runs are no
// schedules: one that broke a property or ended in an error is said so.
func summarise(w io.Writer, c Run, dir string, runs ...reports.Run) error {
	var t summary
	var took time.Duration
	var peak int64
	for _, run := range runs {
		took, peak = max(took, run.Took), peak+run.PeakMemory
		t.add(w, c, run)
	}
	ran, findings, errs, reproduced, notDone, short, refs, times := t.ran, t.findings, t.errs, t.reproduced, t.notDone, t.short, t.refs, t.times
	also := ""
	if refs > 0 {
		also = fmt.Sprintf(" (after %d fault-free reference run(s))", refs)
	}
	side := ""
	if len(runs) > 1 {
		side = fmt.Sprintf(" (%d suite processes side by side, a cluster each)", len(runs))
		if c.SharedCluster {
			side = fmt.Sprintf(" (%d suite processes side by side, one cluster shared)", len(runs))
		}
	}
	fmt.Fprintf(w, "\nexplore: %d schedule(s)%s in %s%s, %.1f/min, %d finding(s), %d error(s); details in %s\n", ran, also, took.Round(time.Second), side,
		float64(ran)/max(took.Minutes(), 1.0/60), findings, errs, dir)
	if covered, possible := tally.Coverage(t.specs); possible > 0 {
		together := ""
		if len(runs) > 1 {
			together = ", the processes together"
		}
		fmt.Fprintf(w, "explore: the schedules acted %d of the %d fault × resource × phase combinations the subject offers%s\n", covered, possible, together)
	}
	if notDone > 0 {
		fmt.Fprintf(w, "explore: %d step(s) of %d schedule(s) not done (their trigger never came, or their replica was not there): not counted as tried; each schedule's facts say which\n", notDone, short)
	}
	if len(times) > 0 {
		ps := phases.Summarise(times)
		fmt.Fprintf(w, "explore: %s\n", ps)
		if refs > 0 {
			fmt.Fprintf(w, "explore: the %d reference run(s) took %s together\n", refs, t.refsTook.Round(time.Second))
		}
		if err := writePhases(dir, ps); err != nil {
			fmt.Fprintf(w, "explore: keep the phase times: %v\n", err)
		}
	}
	switch {
	case peak > 0 && len(runs) > 1:
		fmt.Fprintf(w, "explore: the suite processes (their fault proxies, recorders and judgement) peaked at %d MB resident at most together (the sum of their peaks)\n", peak>>20)
	case peak > 0:
		fmt.Fprintf(w, "explore: the suite process (its fault proxies, recorders and judgement) peaked at %d MB resident\n", peak>>20)
	}
	if c.Replay != "" && c.Scheduled.Breaks != "" {
		fmt.Fprintf(w, "replay: broke %s again in %d of %d run(s)\n", c.Scheduled.Breaks, reproduced, ran)
	}
	return exploreResult(ran, findings, errs)
}

// summary counts a run's schedules, findings, errors, replays that broke
// the replayed schedule's properties again, steps not done, schedules
// with such steps and reference runs; it keeps the schedules' phase times
// and the reference runs' time.
type summary struct {
	ran, findings, errs, reproduced, notDone, short, refs int
	times                                                 []phases.Times
	refsTook                                              time.Duration
	// specs are every process's, for their coverage together.
	specs []tally.Spec
}

// add counts one suite run's specs into t, printing its findings and
// errors.
func (t *summary) add(w io.Writer, c Run, run reports.Run) {
	specs := tally.Specs(run.Specs, run.Dir)
	t.specs = append(t.specs, specs...)
	for _, s := range specs {
		if s.Reference {
			t.refs++
			if s.Report != nil {
				t.refsTook += s.Report.RunTime
			}
			switch s.Outcome {
			case verdict.BrokenSpec:
				t.findings++
				fmt.Fprintf(w, "finding: %s (no faults) broke %s\n  evidence: %s\n", s.Name, strings.Join(s.Broken, ", "), s.Evidence)
			case verdict.Error:
				t.errs++
				fmt.Fprintf(w, "error: %s: %s\n", s.Name, s.Reason)
			}
			continue
		}
		var steps []string
		if s.Report != nil {
			steps = tally.NotDone(*s.Report)
			t.times = append(t.times, phases.Of(*s.Report))
		}
		switch s.Outcome {
		case verdict.BrokenSpec:
			t.findings++
			fmt.Fprintf(w, "finding: %s broke %s\n  schedule: %s\n  evidence: %s\n", s.Name, strings.Join(s.Broken, ", "), s.Schedule, s.Evidence)
			if strings.Join(s.Broken, ",") == c.Scheduled.Breaks {
				t.reproduced++
			}
		case verdict.Error:
			t.errs++
			fmt.Fprintf(w, "error: %s: %s\n", s.Name, s.Reason)
		}
		if len(steps) > 0 && s.Outcome != verdict.Passed {
			fmt.Fprintf(w, "  not done: %s\n", strings.Join(steps, "\n  not done: "))
		}
		if len(steps) > 0 {
			t.notDone += len(steps)
			t.short++
		}
		t.ran++
	}
}

// PhasesFile is where a run's phase summary is kept, in its folder.
const PhasesFile = "phases.json"

// writePhases keeps the run's phase summary ps in dir.
func writePhases(dir string, ps phases.Summary) error {
	if dir == "" {
		return nil
	}
	data, err := json.MarshalIndent(ps, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, PhasesFile), append(data, '\n'), 0o644)
}

// exploreResult is the command's failure for a run of ran schedules with
// findings and errs among them: a finding, a schedule that ended in an
// error and a run in which none ran each fail it. A finding marks it as
// one (cli.ErrFinding), even beside errors; otherwise it is a harness
// error (cli.ErrHarness).
func exploreResult(ran, findings, errs int) error {
	var why []string
	if findings > 0 {
		why = append(why, "exploration found schedules that break properties: see the findings above")
	}
	if errs > 0 {
		why = append(why, fmt.Sprintf("%d schedule(s) ended in an error, their verdict unknown: see the errors above", errs))
	}
	if ran == 0 {
		why = append(why, "no schedule ran: the run judged nothing (see its log)")
	}
	if len(why) == 0 {
		return nil
	}
	kind := cli.ErrHarness
	if findings > 0 {
		kind = cli.ErrFinding
	}
	return cli.Mark(kind, errors.New(strings.Join(why, "; ")))
}

// shrinkPolicy is the shrink of the replayed schedule against cell: each
// replay a run of the exploration suite of its own; against a seeded bug,
// discriminating against the subject's correct mode.
func (c Run) shrinkPolicy(cell reports.Cell) shrink.Policy {
	return shrink.Policy{Schedule: c.Scheduled, File: c.Replay, Root: filepath.Join(c.Matrix.Root, "shrink"),
		Confirm: c.Confirm, Repeat: c.Repeat, Discriminate: cell.Bug != nil, Subject: cell.Subject,
		Replay: func(ctx context.Context, correct bool, dir, file string, n int, progress io.Writer) (shrink.Tally, error) {
			replayed := cell
			if correct {
				replayed.Bug = nil
			}
			run := c.runSuite(ctx, replayed, filepath.Join(dir, "run"), c.suiteArgs(file, n), progress)
			if run.Err != "" {
				return shrink.Tally{}, errors.New(run.Err)
			}
			if ctx.Err() != nil {
				return shrink.Tally{}, ctx.Err()
			}
			return shrink.Count(run.Specs, c.Scheduled.Breaks), nil
		}}
}

// Run runs the exploration suite against the subject (or shrinks the
// replayed schedule) and prints its findings: each with the schedule kept
// beside its evidence.
func (c Run) Run(ctx context.Context, stdout, stderr io.Writer) error {
	cell := reports.Cell{Suite: "explore", Subject: c.Subject, SubjectFile: c.File}
	if b, ok := catalog.Lookup(c.Bug); ok {
		cell.Bug = &b
	}
	if c.BuildBins {
		if _, err := local.BuildBinaries(ctx, c.Version, stderr); err != nil {
			return err
		}
	}
	var err error
	if c.Matrix.Refctl, err = matrix.BuildRefctl(ctx, "explore", []reports.Cell{cell}, filepath.Join(c.Matrix.Root, "bin"), stderr); err != nil {
		return err
	}
	if c.Replay != "" {
		fmt.Fprintf(stderr, "explore: replaying %s (%d step(s), breaks %q) %d time(s) against %s\n", c.Replay, len(c.Scheduled.Steps), c.Scheduled.Breaks, c.Repeat, c.Subject)
	} else {
		side := ""
		if c.Parallel > 1 {
			side = fmt.Sprintf(", %d suite processes side by side (--parallel)", c.Parallel)
		}
		replays := fmt.Sprintf("--seed %d", c.Seed)
		if c.Pattern != "" {
			side += ", every schedule in pattern " + c.Pattern
			replays += " --pattern " + c.Pattern
		}
		fmt.Fprintf(stderr, "explore: %s as a %s, budget %s, seed %d (%s replays this run's draws)%s\n", c.Subject, c.Capability, c.Budget, c.Seed, replays, side)
	}
	if c.Nodes.TurnOn {
		fmt.Fprintln(stderr, "explore: "+c.Nodes.Said)
	}
	if c.Nodes.Warning != "" {
		fmt.Fprintln(stderr, "explore: warning: "+c.Nodes.Warning)
	}
	if c.Shrink {
		return c.shrinkPolicy(cell).Run(ctx, stdout, stderr)
	}
	dir := filepath.Join(c.Matrix.Root, "run")
	var runs []reports.Run
	if c.Replay == "" && c.Parallel > 1 {
		runs = c.runShards(ctx, cell, dir, stderr)
	} else {
		runs = []reports.Run{c.runSuite(ctx, cell, dir, c.suiteArgs(c.Replay, c.Repeat), stderr)}
	}
	for _, run := range runs {
		if run.Err != "" {
			return cli.Mark(cli.ErrHarness, fmt.Errorf("explore: %s", run.Err))
		}
	}
	err = summarise(stdout, c, dir, runs...)
	if ctx.Err() != nil {
		// Interrupted, the run is incomplete: a harness error, unless
		// it found something first.
		kind := cli.ErrHarness
		if errors.Is(err, cli.ErrFinding) {
			kind = cli.ErrFinding
		}
		return cli.Mark(kind, errors.New("interrupted: every fault was recovered and every process stopped; the findings so far are above"))
	}
	return err
}
