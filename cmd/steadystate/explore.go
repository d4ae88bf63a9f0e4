package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/catalog"
	"github.com/steadystate-dev/steadystate/chaos/schedule"
	"github.com/steadystate-dev/steadystate/chaos/shrink"
	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/fixtures"
	"github.com/steadystate-dev/steadystate/internal/testenv"
	"github.com/steadystate-dev/steadystate/matrix"
	"github.com/steadystate-dev/steadystate/reports"
	"github.com/steadystate-dev/steadystate/subjectfile"
	"github.com/steadystate-dev/steadystate/suites/explore"
	"github.com/steadystate-dev/steadystate/verdict"
)

// exploreConfig is an exploration run, read once from the flags.
type exploreConfig struct {
	subject, file, bug, capability string
	budget                         time.Duration
	seed                           uint64
	replay                         string
	repeat                         int
	// confirm is how many replays in a row a shrink candidate must break.
	confirm       int
	shrink, first bool
	// scheduled is the replayed schedule.
	scheduled schedule.Schedule
	// version is the local control plane's (KUBE_VERSION); buildBins
	// says it is built first when missing (no KUBE_BIN_DIR given).
	version   string
	buildBins bool
	// upDir is the folder of the upstream releases a subject file may
	// name ({{.UpstreamDir}}), as for conform.
	upDir string
	run   matrix.Run
}

func exploreConfigFrom(args []string) (exploreConfig, error) {
	var c exploreConfig
	fs := flag.NewFlagSet("explore", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.subject, "subject", "", "a reference subject (workload, leader, composite, cluster), a built-in one (replicaset, statefulset) or a subject file")
	fs.StringVar(&c.bug, "bug", "", "a seeded bug of the reference subject")
	fs.StringVar(&c.capability, "capability", "", "the capability to explore (default: the subject's)")
	budget := fs.String("budget", "10m", "how long new schedules may start")
	seed := fs.String("seed", "", "the run's seed (default: from the clock; printed)")
	fs.StringVar(&c.replay, "replay", "", "a schedule file to run again instead of drawing schedules")
	fs.IntVar(&c.repeat, "repeat", 0, "how many times --replay runs the schedule (default 1); after --shrink, the shrunk one and each it walks back to (default 10)")
	fs.IntVar(&c.confirm, "confirm", 2, "how many replays in a row a --shrink candidate must break to count")
	fs.BoolVar(&c.first, "first", false, "stop at the first finding")
	fs.BoolVar(&c.shrink, "shrink", false, "reduce the --replay schedule to a smallest one that breaks the same properties")
	if err := fs.Parse(args); err != nil {
		return c, fmt.Errorf("%w: explore: %w", errUsage, err)
	}
	var err error
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("%w: explore takes flags only, not %q", errUsage, fs.Arg(0))
	case c.subject == "":
		return c, fmt.Errorf("%w: explore needs --subject: a reference subject (workload, leader, composite, cluster), a built-in one (replicaset, statefulset) or a subject file", errUsage)
	case c.repeat < 0:
		return c, fmt.Errorf("--repeat %d: a replay runs at least once", c.repeat)
	case c.confirm < 1:
		return c, fmt.Errorf("--confirm %d: a shrink candidate is replayed at least once", c.confirm)
	case c.shrink && c.replay == "":
		return c, fmt.Errorf("%w: --shrink reduces a kept schedule: give it with --replay FILE", errUsage)
	case c.repeat == 0 && c.shrink:
		c.repeat = 10
	case c.repeat == 0:
		c.repeat = 1
	}
	if c.budget, err = time.ParseDuration(*budget); err != nil || c.budget <= 0 {
		return c, fmt.Errorf("--budget %q is not a duration: use one such as 10m or 90s", *budget)
	}
	c.seed = uint64(time.Now().UnixNano())
	if *seed != "" {
		if c.seed, err = strconv.ParseUint(*seed, 10, 64); err != nil {
			return c, fmt.Errorf("--seed %q is not a seed: use the number a previous run printed", *seed)
		}
	}
	if err := c.resolveSubject(); err != nil {
		return c, err
	}
	if c.upDir, err = upstreamDir(); err != nil {
		return c, err
	}
	if c.replay != "" {
		if c.scheduled, err = schedule.Load(c.replay); err != nil {
			return c, err
		}
		if c.capability != "" && c.capability != c.scheduled.Capability {
			return c, fmt.Errorf("%s exercises %s, not --capability %s", c.replay, c.scheduled.Capability, c.capability)
		}
		c.capability = c.scheduled.Capability
		if c.shrink && c.scheduled.Breaks == "" {
			return c, fmt.Errorf("%s names no property it breaks (breaks:): --shrink keeps a schedule breaking the same ones; shrink a schedule explore kept", c.replay)
		}
	}
	bound, err := c.capabilities()
	if err != nil {
		return c, err
	}
	if c.capability == "" {
		c.capability = bound[0]
	}
	if !slices.Contains(bound, c.capability) {
		return c, fmt.Errorf("subject %s has no capability %s that exploration drives: it has %s", c.subject, c.capability, strings.Join(bound, ", "))
	}
	if c.version = os.Getenv("KUBE_VERSION"); c.version == "" {
		c.version = local.DefaultKubeVersion
	}
	provider := os.Getenv("PROVIDER")
	c.buildBins = (provider == "" || provider == "local") && os.Getenv("KUBE_BIN_DIR") == ""
	c.run, err = newMatrixRun("explore", "exploration", "EXPLORE", 1)
	c.run.Progress = true
	c.run.Provider = provider
	c.run.Env = append(c.run.Env, "UPSTREAM_DIR="+c.upDir)
	return c, err
}

// resolveSubject tells a subject file from a subject's name, and refuses a
// bug the subject has not. A subject file is a regular file or a name
// ending .yaml: in the checkout, "cluster" (a subject) is also a folder.
func (c *exploreConfig) resolveSubject() error {
	if fi, err := os.Stat(c.subject); (err == nil && fi.Mode().IsRegular()) || strings.HasSuffix(c.subject, ".yaml") {
		abs, err := filepath.Abs(c.subject)
		c.file = abs
		if c.bug != "" {
			return fmt.Errorf("--bug %s applies to the reference subjects only, not to the subject file %s", c.bug, c.subject)
		}
		return err
	}
	if c.bug == "" {
		return nil
	}
	if b, ok := catalog.Lookup(c.bug); !ok || b.Subject != c.subject {
		return fmt.Errorf("--bug %q is not a seeded bug of subject %s: see `steadystate catalog`", c.bug, c.subject)
	}
	return nil
}

// capabilities are the subject's capabilities that exploration drives.
func (c *exploreConfig) capabilities() ([]string, error) {
	var bound []string
	switch {
	case c.file != "":
		f, err := subjectfile.Load(c.file, subjectfile.Options{FromImage: true, UpstreamDir: c.upDir})
		if err != nil {
			return nil, err
		}
		bound = f.Capabilities.Bound()
	case slices.ContainsFunc(catalog.Suites, func(s catalog.Suite) bool { return s.Subject == c.subject }):
		for _, s := range catalog.Suites {
			if s.Subject == c.subject {
				bound = append(bound, s.Capability)
			}
		}
	default:
		data, err := fixtures.Subjects.ReadFile("subjects/" + c.subject + ".yaml")
		if err != nil {
			return nil, fmt.Errorf("--subject %s is neither a subject file nor a subject exploration drives: use workload, leader, composite, cluster, replicaset, statefulset or a subject file", c.subject)
		}
		f, err := subjectfile.Parse(data, c.subject, subjectfile.Options{FromImage: true})
		if err != nil {
			return nil, err
		}
		bound = f.Capabilities.Bound()
	}
	bound = slices.DeleteFunc(bound, func(b string) bool { return !slices.Contains(explore.Explorable, b) })
	if len(bound) == 0 {
		return nil, fmt.Errorf("subject %s has no capability exploration drives (%s)", c.subject, strings.Join(explore.Explorable, ", "))
	}
	return bound, nil
}

// suiteArgs are the exploration suite's flags for c, replaying the
// schedule file replay repeat times when it is set.
func (c exploreConfig) suiteArgs(replay string, repeat int) []string {
	args := []string{"-steadystate.explore.capability=" + c.capability, "-steadystate.explore.seed=" + strconv.FormatUint(c.seed, 10),
		"-steadystate.explore.budget=" + c.budget.String(), "-ginkgo.timeout=" + (c.budget + 30*time.Minute).String()}
	if c.first {
		args = append(args, "-steadystate.explore.first")
	}
	if replay != "" {
		abs, _ := filepath.Abs(replay)
		args = append(args, "-steadystate.explore.replay="+abs, "-steadystate.explore.repeat="+strconv.Itoa(repeat))
	}
	return args
}

// runSuite runs the exploration suite once in dir (emptied first).
func (c exploreConfig) runSuite(ctx context.Context, cell reports.Cell, dir string, args []string, stderr io.Writer) reports.Run {
	if err := os.RemoveAll(dir); err != nil {
		return reports.Run{Err: err.Error()}
	}
	cr := c.run.CellRun(cell, dir, 1, stderr)
	cr.StatusOnly, cr.Args = true, args
	return matrix.RunCell(ctx, cr)
}

// exploreCommand runs the exploration suite against one subject and
// prints its findings: each with the schedule kept beside its evidence.
func exploreCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := exploreConfigFrom(args)
	if err != nil {
		return err
	}
	cell := reports.Cell{Suite: "explore", Subject: c.subject, SubjectFile: c.file}
	if b, ok := catalog.Lookup(c.bug); ok {
		cell.Bug = &b
	}
	if c.buildBins {
		if _, err := local.BuildBinaries(ctx, c.version, stderr); err != nil {
			return err
		}
	}
	if c.run.Refctl, err = matrix.BuildRefctl(ctx, "explore", []reports.Cell{cell}, filepath.Join(c.run.Root, "bin"), stderr); err != nil {
		return err
	}
	if c.replay != "" {
		fmt.Fprintf(stderr, "explore: replaying %s (%d step(s), breaks %q) %d time(s) against %s\n", c.replay, len(c.scheduled.Steps), c.scheduled.Breaks, c.repeat, c.subject)
	} else {
		fmt.Fprintf(stderr, "explore: %s as a %s, budget %s, seed %d (--seed %d replays this run's draws)\n", c.subject, c.capability, c.budget, c.seed, c.seed)
	}
	if c.shrink {
		return c.shrinkPolicy(cell).Run(ctx, stdout, stderr)
	}
	run := c.runSuite(ctx, cell, filepath.Join(c.run.Root, "run"), c.suiteArgs(c.replay, c.repeat), stderr)
	if run.Err != "" {
		return fmt.Errorf("explore: %s", run.Err)
	}
	err = summarise(stdout, c, run)
	if ctx.Err() != nil {
		return errors.New("interrupted: every fault was recovered and every process stopped; the findings so far are above")
	}
	return err
}

// summarise prints the run's schedules, findings and errors, and the
// steps not done. A finding is the command's failure; so is a schedule
// that ended in an error (its verdict is unknown) and a run in which no
// schedule ran.
func summarise(w io.Writer, c exploreConfig, run reports.Run) error {
	var ran, findings, errs, reproduced, notDone, short int
	for _, s := range run.Specs {
		if s.Outcome == verdict.SkippedSpec {
			continue
		}
		var steps []string
		if s.Report != nil {
			steps = explore.NotDone(*s.Report)
		}
		switch s.Outcome {
		case verdict.BrokenSpec:
			findings++
			folder := filepath.Join(run.Dir, testenv.ArtifactsFolder(s.Name))
			fmt.Fprintf(w, "finding: %s broke %s\n  schedule: %s\n  evidence: %s\n", s.Name, strings.Join(s.Broken, ", "),
				filepath.Join(folder, explore.ScheduleFile), filepath.Join(folder, "history.txt"))
			if strings.Join(s.Broken, ",") == c.scheduled.Breaks {
				reproduced++
			}
		case verdict.Error:
			errs++
			fmt.Fprintf(w, "error: %s: %s\n", s.Name, s.Reason)
		}
		if len(steps) > 0 && s.Outcome != verdict.Passed {
			fmt.Fprintf(w, "  not done: %s\n", strings.Join(steps, "\n  not done: "))
		}
		if len(steps) > 0 {
			notDone += len(steps)
			short++
		}
		ran++
	}
	fmt.Fprintf(w, "\nexplore: %d schedule(s) in %s, %d finding(s), %d error(s); details in %s\n", ran, run.Took.Round(time.Second), findings, errs, run.Dir)
	if notDone > 0 {
		fmt.Fprintf(w, "explore: %d step(s) of %d schedule(s) not done (their trigger never came, or their replica was not there): not counted as tried; each schedule's facts say which\n", notDone, short)
	}
	if run.PeakMemory > 0 {
		fmt.Fprintf(w, "explore: the suite process (its fault proxies, recorders and judgement) peaked at %d MB resident\n", run.PeakMemory>>20)
	}
	if c.replay != "" && c.scheduled.Breaks != "" {
		fmt.Fprintf(w, "replay: broke %s again in %d of %d run(s)\n", c.scheduled.Breaks, reproduced, ran)
	}
	return exploreResult(ran, findings, errs)
}

// exploreResult is the command's failure for a run of ran schedules with
// findings and errs among them: a finding, a schedule that ended in an
// error and a run in which none ran each fail it.
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
	return errors.New(strings.Join(why, "; "))
}

// shrinkPolicy is the shrink of the replayed schedule against cell: each
// replay a run of the exploration suite of its own; against a seeded bug,
// discriminating against the subject's correct mode.
func (c exploreConfig) shrinkPolicy(cell reports.Cell) shrink.Policy {
	return shrink.Policy{Schedule: c.scheduled, File: c.replay, Root: filepath.Join(c.run.Root, "shrink"),
		Confirm: c.confirm, Repeat: c.repeat, Discriminate: cell.Bug != nil, Subject: cell.Subject,
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
			return shrink.Count(run.Specs, c.scheduled.Breaks), nil
		}}
}
