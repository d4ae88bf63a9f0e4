// Command zoo runs `steadystate conform` over the zoo's subject files and
// prints the matrix (package zoo). `make zoo` runs it with flags from its
// variables: -runs (ZOO_RUNS, default 1), -subjects (ZOO_SUBJECTS,
// comma-separated file stems, default all), -dir (default fixtures/zoo),
// -steadystate (the program, default bin/steadystate), -artifacts (the
// runs go below it, in zoo/) and -nodes (LOCAL_NODES for the runs, default
// on: the zoo's workloads need pods that run) and -capabilities
// (ZOO_CAPABILITIES: only those capabilities' suites, conform's
// --capabilities) and -parallel (ZOO_PARALLEL, default 1: conform runs
// side by side, a local cluster each).
//
// With -repro -finding NAME (`make zoo-repro FINDING=NAME`) it reproduces
// a kept finding instead: the file NAME.yaml of -findings (default
// fixtures/zoo/findings) names a subject file and a shrunk schedule, and
// the schedule is replayed its number of times with `steadystate explore
// --subject S --replay SCHEDULE --repeat N`, in ARTIFACTS/zoo-repro/NAME;
// it prints how many replays broke which property, and exits 1 unless
// enough broke every property the schedule names. An empty or unknown
// NAME is refused in one line naming the findings (exit 2). With
// -timeline EVIDENCE.json it writes that recorded evidence's timeline, as
// the report page draws it, as a standalone SVG to stdout (a finding's
// page shows it). With -hunt (`make hunt`) it explores each subject in
// turn instead, -budget (HUNT_BUDGET, default 30m) each, with -seed
// (HUNT_SEED) and -capability (default steadyState), and prints per
// subject the schedules run, schedules a minute, findings and errors, and
// every finding to triage, kept as hunt.json and hunt.md in
// ARTIFACTS/hunt; it exits 1 unless every subject ran schedules with no
// finding and no error.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/steadystate-dev/steadystate/evidence"
	"github.com/steadystate-dev/steadystate/reports/html"
	"github.com/steadystate-dev/steadystate/zoo"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first Ctrl-C interrupts the runs, which stop their clusters; a
	// second one kills the zoo, and its runs with it.
	go func() {
		<-ctx.Done()
		stop()
	}()
	ok, err := run(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}

func run(ctx context.Context) (bool, error) {
	fs := flag.NewFlagSet("zoo", flag.ContinueOnError)
	runs := fs.Int("runs", 1, "runs of each subject")
	subjects := fs.String("subjects", "", "comma-separated subject file stems to run (default all)")
	dir := fs.String("dir", "fixtures/zoo", "the zoo's subject files")
	steadystate := fs.String("steadystate", "bin/steadystate", "the steadystate program")
	artifactsRoot := fs.String("artifacts", "_artifacts", "the runs go below ARTIFACTS/zoo")
	nodes := fs.String("nodes", "on", "LOCAL_NODES for the runs (simulated nodes)")
	capabilities := fs.String("capabilities", "", "comma-separated capabilities whose suites conform runs (default every bound one)")
	finding := fs.String("finding", "", "reproduce this kept finding instead (a file stem of -findings)")
	findings := fs.String("findings", "fixtures/zoo/findings", "the kept findings")
	reproduce := fs.Bool("repro", false, "reproduce the kept finding -finding instead of running the zoo")
	timeline := fs.String("timeline", "", "write the timeline of this evidence file (evidence.json) as an SVG to stdout instead of running the zoo")
	hunt := fs.Bool("hunt", false, "explore every subject in turn (the hunt) instead of running conform over it")
	budget := fs.Duration("budget", 30*time.Minute, "the hunt: each subject's exploration budget")
	seed := fs.Uint64("seed", 1, "the hunt: the explorations' seed")
	capability := fs.String("capability", "steadyState", "the hunt: the capability explored")
	pattern := fs.String("pattern", "", "the hunt: draw every schedule in this pattern (explore --pattern; default: explore's mix)")
	parallel := fs.Int("parallel", 1, "conform runs side by side, a cluster each (the hunt: suite processes exploring each subject side by side)")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return false, fmt.Errorf("zoo: %w", err)
	}
	if *timeline != "" {
		e, err := evidence.Read(*timeline)
		if err != nil {
			return false, err
		}
		_, err = io.WriteString(os.Stdout, html.TimelineSVG(e, e.Records))
		return err == nil, err
	}
	if *reproduce {
		return repro(ctx, *findings, *finding, *steadystate, *artifactsRoot, *nodes)
	}
	if *hunt {
		return runHunt(ctx, *dir, *subjects, *steadystate, *artifactsRoot, *nodes, zoo.HuntConfig{Capability: *capability, Budget: *budget, Seed: *seed, Pattern: *pattern, Parallel: *parallel})
	}
	if *runs < 1 {
		return false, fmt.Errorf("zoo: -runs %d (ZOO_RUNS): give a count of 1 or more", *runs)
	}
	if *parallel < 1 {
		return false, fmt.Errorf("zoo: -parallel %d (ZOO_PARALLEL): give a count of 1 or more", *parallel)
	}
	pick := items(*subjects)
	artifacts, err := filepath.Abs(filepath.Join(*artifactsRoot, "zoo"))
	if err != nil {
		return false, err
	}
	program, err := programPath(*steadystate, "zoo")
	if err != nil {
		return false, err
	}
	cfg := zoo.Config{Dir: *dir, Subjects: pick, Runs: *runs, Steadystate: program,
		Artifacts: artifacts, Env: []string{"LOCAL_NODES=" + *nodes}, Parallel: *parallel}
	cfg.Capabilities = items(*capabilities)
	picked, err := zoo.Subjects(cfg.Dir, cfg.Subjects)
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		return false, err
	}
	fmt.Fprintf(os.Stderr, "zoo: %d subject(s) x %d run(s), %d at a time, each on a local cluster of its own with simulated nodes LOCAL_NODES=%s; artifacts in %s\n", len(picked), *runs, *parallel, *nodes, artifacts)
	m, err := zoo.RunAll(ctx, cfg, picked, os.Stderr)
	if m == nil {
		return false, err
	}
	ok := m.Print(os.Stdout)
	if ctx.Err() != nil {
		fmt.Fprintf(os.Stdout, "zoo: interrupted; the matrix of the runs that finished is not kept\n")
		return false, err
	}
	fmt.Fprintf(os.Stdout, "zoo: matrix kept in %s (zoo.json, zoo.md)\n", artifacts)
	return ok, err
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

// programPath is the steadystate program's absolute path, refused in one
// line when it is not built.
func programPath(steadystate, target string) (string, error) {
	program, err := filepath.Abs(steadystate)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(program); err != nil {
		return "", fmt.Errorf("%s: the steadystate program %s: %v; build it with `make steadystate` (make %s does)", target, program, err, target)
	}
	return program, nil
}

// runHunt explores each subject of dir (or those subjects names) in
// turn, prints the hunt's table and its findings to triage, and keeps
// them in ARTIFACTS/hunt.
func runHunt(ctx context.Context, dir, subjects, steadystate, artifactsRoot, nodes string, cfg zoo.HuntConfig) (bool, error) {
	if cfg.Budget <= 0 {
		return false, fmt.Errorf("hunt: -budget %s (HUNT_BUDGET): give a duration above zero, such as 30m", cfg.Budget)
	}
	if cfg.Parallel < 1 {
		return false, fmt.Errorf("hunt: -parallel %d (HUNT_PARALLEL): give a count of 1 or more", cfg.Parallel)
	}
	picked, err := zoo.Subjects(dir, items(subjects))
	if err != nil {
		return false, err
	}
	if cfg.Steadystate, err = programPath(steadystate, "hunt"); err != nil {
		return false, err
	}
	if cfg.Artifacts, err = filepath.Abs(filepath.Join(artifactsRoot, "hunt")); err != nil {
		return false, err
	}
	if err := os.MkdirAll(cfg.Artifacts, 0o755); err != nil {
		return false, err
	}
	cfg.Env = []string{"LOCAL_NODES=" + nodes}
	fmt.Fprintf(os.Stderr, "hunt: %d subject(s), %s each as %s, seed %d, %d suite process(es) side by side, on the local cluster with LOCAL_NODES=%s; artifacts in %s\n", len(picked), cfg.Budget, cfg.Capability, cfg.Seed, cfg.Parallel, nodes, cfg.Artifacts)
	rows, err := zoo.Hunt(ctx, cfg, picked, os.Stderr)
	ok := zoo.PrintHunt(os.Stdout, rows)
	fmt.Fprintf(os.Stdout, "hunt: table kept in %s (hunt.json, hunt.md)\n", cfg.Artifacts)
	return ok, err
}

// repro reproduces the finding name of dir: its schedule replayed
// against its subject, the tally printed.
func repro(ctx context.Context, dir, name, steadystate, artifactsRoot, nodes string) (bool, error) {
	root, err := os.Getwd()
	if err != nil {
		return false, err
	}
	f, err := zoo.LoadFinding(dir, root, name)
	if err != nil {
		return false, err
	}
	program, err := programPath(steadystate, "zoo-repro")
	if err != nil {
		return false, err
	}
	artifacts, err := filepath.Abs(filepath.Join(artifactsRoot, "zoo-repro", f.Name))
	if err != nil {
		return false, err
	}
	cfg := zoo.ReproConfig{Root: root, Steadystate: program, Artifacts: artifacts, Env: []string{"LOCAL_NODES=" + nodes}}
	t, err := zoo.Repro(ctx, cfg, f, os.Stderr)
	if err != nil {
		return false, err
	}
	ok := t.Print(os.Stdout, f)
	fmt.Fprintf(os.Stdout, "zoo-repro %s: the replays' evidence is in %s (explore.log, explore/run)\n", f.Name, artifacts)
	return ok, nil
}
