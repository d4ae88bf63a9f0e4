package zoo

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/internal/config"
	"github.com/steadystate-dev/steadystate/internal/renamed"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/reports/html"
)

// Command is `steadystate zoo`: run (conform and verify over the zoo's
// subject files, the matrix printed; `make zoo`), hunt (explore each
// subject in turn; `make hunt`), repro (replay a kept finding; `make
// zoo-repro`) or timeline (a recorded evidence's timeline as an SVG). The
// runs are child processes of this same program (os.Executable), each
// with LOCAL_NODES set to --nodes. A table or tally that is not all as
// wanted (a run not passed, a finding, a replay short of its count) is a
// finding (exit 1); input refused before anything ran is exit 2.
func Command(ctx context.Context, cfg config.Settings, args []string, stdout, stderr io.Writer) error {
	if cli.WantsHelp(args[:min(1, len(args))]) {
		return flag.ErrHelp
	}
	if len(args) == 0 {
		return fmt.Errorf("%w: zoo needs run (conform over the subject files), hunt (explore each in turn), repro (replay a kept finding) or timeline (an evidence's timeline as SVG)", cli.ErrUsage)
	}
	switch args[0] {
	case "run":
		return run(ctx, cfg, args[1:], stdout, stderr)
	case "hunt":
		return hunt(ctx, cfg, args[1:], stdout, stderr)
	case "repro":
		return repro(ctx, cfg, args[1:], stdout, stderr)
	case "timeline":
		return timeline(args[1:], stdout)
	}
	return fmt.Errorf("%w: zoo %q: use run, hunt, repro or timeline", cli.ErrUsage, args[0])
}

// common are the flags every zoo command that runs takes: where the runs
// go and the LOCAL_NODES they run with.
type common struct {
	artifacts, nodes string
}

func (c *common) flags(fs *flag.FlagSet, cfg config.Settings) {
	artifacts := cfg.Artifacts
	if artifacts == "" {
		artifacts = config.DefaultArtifacts
	}
	nodes := cfg.LocalNodes
	if nodes == "" {
		nodes = "on"
	}
	fs.StringVar(&c.artifacts, "artifacts", artifacts, "the runs go below this folder (ARTIFACTS)")
	fs.StringVar(&c.nodes, "nodes", nodes, "LOCAL_NODES for the runs: simulated nodes, which the zoo's workloads need (LOCAL_NODES, else on)")
}

// env is the runs' environment beyond this process's.
func (c common) env() []string { return []string{"LOCAL_NODES=" + c.nodes} }

// setUp returns this program's path, which the runs are started from,
// and the absolute folder name below the artifacts they go in, made.
func (c common) setUp(name ...string) (self, dir string, err error) {
	if self, err = os.Executable(); err != nil {
		return "", "", fmt.Errorf("zoo: the steadystate program's own path: %w", err)
	}
	if dir, err = filepath.Abs(filepath.Join(append([]string{c.artifacts}, name...)...)); err != nil {
		return "", "", err
	}
	return self, dir, os.MkdirAll(dir, 0o755)
}

// notAsWanted marks a table or tally that is not all as wanted: a
// finding's exit code.
func notAsWanted(what string) error {
	return cli.Mark(cli.ErrFinding, errors.New(what))
}

func run(ctx context.Context, cfg config.Settings, args []string, stdout, stderr io.Writer) error {
	cmd := cli.New("zoo run", "zoo run [--runs N] [--subjects A,B] [--dir fixtures/zoo] [--capabilities C,...] [--parallel N] [--nodes on] [--artifacts DIR]",
		"Run conform and verify over every subject file of --dir (or those --subjects names, by file\n"+
			"stem), --runs times each, each run on a local cluster of its own, and print the matrix,\n"+
			"kept in ARTIFACTS/zoo (zoo.json, zoo.md). See docs/zoo.md.")
	fs := cmd.FS
	var c common
	c.flags(fs, cfg)
	runs := fs.Int("runs", 1, "runs of each subject")
	subjects := fs.String("subjects", "", "comma-separated subject file stems to run (default all)")
	dir := fs.String("dir", "fixtures/zoo", "the zoo's subject files")
	capabilities := fs.String("capabilities", "", "comma-separated capabilities whose suites conform runs (default every bound one)")
	parallel := fs.Int("parallel", 1, "conform runs side by side, a local cluster each")
	if err := parseFlagsOnly(cmd, args); err != nil {
		return err
	}
	if *runs < 1 {
		return fmt.Errorf("%w: zoo run --runs %d (ZOO_RUNS): give a count of 1 or more", cli.ErrUsage, *runs)
	}
	if *parallel < 1 {
		return fmt.Errorf("%w: zoo run --parallel %d (ZOO_PARALLEL): give a count of 1 or more", cli.ErrUsage, *parallel)
	}
	picked, err := Subjects(*dir, items(*subjects))
	if err != nil {
		return cli.Mark(cli.ErrInput, err)
	}
	self, artifacts, err := c.setUp("zoo")
	if err != nil {
		return err
	}
	zc := Config{Dir: *dir, Subjects: items(*subjects), Runs: *runs, Steadystate: self, Artifacts: artifacts,
		Env: c.env(), Capabilities: items(*capabilities), Parallel: *parallel}
	fmt.Fprintf(stderr, "zoo: %d subject(s) x %d run(s), %d at a time, each on a local cluster of its own with simulated nodes LOCAL_NODES=%s; artifacts in %s\n", len(picked), *runs, *parallel, c.nodes, artifacts)
	m, err := RunAll(ctx, zc, picked, stderr)
	if m == nil {
		return cli.Mark(cli.ErrHarness, err)
	}
	ok := m.Print(stdout)
	if ctx.Err() != nil {
		fmt.Fprintf(stdout, "zoo: interrupted; the matrix of the runs that finished is not kept\n")
		return cli.Mark(cli.ErrHarness, errors.Join(ctx.Err(), err))
	}
	fmt.Fprintf(stdout, "zoo: matrix kept in %s (zoo.json, zoo.md)\n", artifacts)
	switch {
	case err != nil:
		return cli.Mark(cli.ErrHarness, err)
	case !ok:
		return notAsWanted("zoo: not every run passed with no false alarm (the matrix above)")
	}
	return nil
}

func hunt(ctx context.Context, cfg config.Settings, args []string, stdout, stderr io.Writer) error {
	cmd := cli.New("zoo hunt", "zoo hunt [--budget 30m] [--seed N] [--capability C] [--pattern P] [--parallel N [--shared-cluster on]] [--subjects A,B] [--dir fixtures/zoo] [--nodes on] [--artifacts DIR]",
		"Explore each subject file of --dir (or those --subjects names) in turn, for --budget each,\n"+
			"and print per subject the schedules run, schedules a minute, coverage, findings and errors,\n"+
			"and every finding to triage, kept in ARTIFACTS/hunt (hunt.json, hunt.md). It fails unless\n"+
			"every subject ran schedules with no finding and no error. See docs/exploration.md.")
	fs := cmd.FS
	var c common
	c.flags(fs, cfg)
	hc := HuntConfig{}
	fs.DurationVar(&hc.Budget, "budget", 30*time.Minute, "each subject's exploration budget")
	fs.Uint64Var(&hc.Seed, "seed", 1, "the explorations' seed")
	fs.StringVar(&hc.Capability, "capability", renamed.ReconcileCapability, "the capability explored")
	fs.StringVar(&hc.Pattern, "pattern", "", "draw every schedule in this pattern (explore --pattern; default: explore's mix)")
	fs.IntVar(&hc.Parallel, "parallel", 1, "suite processes exploring each subject side by side, a cluster each")
	sharedCluster := fs.String("shared-cluster", "off", "`on`: the --parallel processes share one cluster (explore --shared-cluster); off: a cluster each")
	subjects := fs.String("subjects", "", "comma-separated subject file stems to explore (default all)")
	dir := fs.String("dir", "fixtures/zoo", "the zoo's subject files")
	if err := parseFlagsOnly(cmd, args); err != nil {
		return err
	}
	hc.Capability = renamed.CurrentCapability(hc.Capability)
	if hc.Budget <= 0 {
		return fmt.Errorf("%w: zoo hunt --budget %s (HUNT_BUDGET): give a duration above zero, such as 30m", cli.ErrUsage, hc.Budget)
	}
	if hc.Parallel < 1 {
		return fmt.Errorf("%w: zoo hunt --parallel %d (HUNT_PARALLEL): give a count of 1 or more", cli.ErrUsage, hc.Parallel)
	}
	switch *sharedCluster {
	case "on":
		hc.SharedCluster = true
	case "off", "":
	default:
		return fmt.Errorf("%w: zoo hunt --shared-cluster %q (HUNT_SHARED_CLUSTER): give on or off", cli.ErrUsage, *sharedCluster)
	}
	if hc.SharedCluster && hc.Parallel < 2 {
		return fmt.Errorf("%w: zoo hunt --shared-cluster on (HUNT_SHARED_CLUSTER) shares one cluster among --parallel processes (HUNT_PARALLEL): give 2 or more", cli.ErrUsage)
	}
	picked, err := Subjects(*dir, items(*subjects))
	if err != nil {
		return cli.Mark(cli.ErrInput, err)
	}
	if hc.Steadystate, hc.Artifacts, err = c.setUp("hunt"); err != nil {
		return err
	}
	hc.Env = c.env()
	together := ""
	if hc.SharedCluster && hc.Parallel > 1 {
		together = " sharing one cluster"
	}
	fmt.Fprintf(stderr, "hunt: %d subject(s), %s each as %s, seed %d, %d suite process(es) side by side%s, on the local cluster with LOCAL_NODES=%s; artifacts in %s\n", len(picked), hc.Budget, hc.Capability, hc.Seed, hc.Parallel, together, c.nodes, hc.Artifacts)
	rows, err := Hunt(ctx, hc, picked, stderr)
	ok := PrintHunt(stdout, rows)
	fmt.Fprintf(stdout, "hunt: table kept in %s (hunt.json, hunt.md)\n", hc.Artifacts)
	switch {
	case err != nil:
		return cli.Mark(cli.ErrHarness, err)
	case !ok:
		return notAsWanted("hunt: not every subject ran schedules with no finding and no error (the table above)")
	}
	return nil
}

func repro(ctx context.Context, cfg config.Settings, args []string, stdout, stderr io.Writer) error {
	cmd := cli.New("zoo repro", "zoo repro --finding NAME [--findings fixtures/zoo/findings] [--nodes on] [--artifacts DIR]",
		"Replay a kept finding: its shrunk schedule against its subject, its number of times, in\n"+
			"ARTIFACTS/zoo-repro/NAME, and print per property how many replays broke it. It fails unless\n"+
			"enough replays broke every property the schedule names. See docs/zoo.md.")
	fs := cmd.FS
	var c common
	c.flags(fs, cfg)
	name := fs.String("finding", "", "the kept finding (a file stem of --findings)")
	dir := fs.String("findings", "fixtures/zoo/findings", "the kept findings")
	if err := parseFlagsOnly(cmd, args); err != nil {
		return err
	}
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	f, err := LoadFinding(*dir, root, *name)
	if err != nil {
		return fmt.Errorf("%w: %w", cli.ErrUsage, err)
	}
	self, artifacts, err := c.setUp("zoo-repro", f.Name)
	if err != nil {
		return err
	}
	t, err := Repro(ctx, ReproConfig{Root: root, Steadystate: self, Artifacts: artifacts, Env: c.env()}, f, stderr)
	if err != nil {
		return cli.Mark(cli.ErrHarness, err)
	}
	ok := t.Print(stdout, f)
	fmt.Fprintf(stdout, "zoo-repro %s: the replays' evidence is in %s (explore.log, explore/run)\n", f.Name, artifacts)
	if !ok {
		return notAsWanted(fmt.Sprintf("zoo-repro %s: too few replays broke its properties (the tally above)", f.Name))
	}
	return nil
}

func timeline(args []string, stdout io.Writer) error {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return fmt.Errorf("%w: zoo timeline takes one evidence file (evidence.json) and writes its timeline as SVG to stdout", cli.ErrUsage)
	}
	e, err := evidence.Read(args[0])
	if err != nil {
		return cli.Mark(cli.ErrInput, err)
	}
	_, err = io.WriteString(stdout, html.TimelineSVG(e, e.Records))
	return err
}

// parseFlagsOnly parses args as cmd's flags and refuses anything else.
func parseFlagsOnly(cmd cli.Command, args []string) error {
	if err := cmd.Parse(args); err != nil {
		return err
	}
	if cmd.FS.NArg() > 0 {
		return fmt.Errorf("%w: %s takes flags only, not %q", cli.ErrUsage, cmd.FS.Name(), cmd.FS.Arg(0))
	}
	return nil
}

// items are the comma-separated items of list, trimmed, empty ones left
// out.
func items(list string) []string {
	var out []string
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
