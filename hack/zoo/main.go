// Command zoo runs `steadystate conform` over the zoo's subject files and
// prints the matrix (package zoo). `make zoo` runs it with flags from its
// variables: -runs (ZOO_RUNS, default 1), -subjects (ZOO_SUBJECTS,
// comma-separated file stems, default all), -dir (default fixtures/zoo),
// -steadystate (the program, default bin/steadystate), -artifacts (the
// runs go below it, in zoo/) and -nodes (LOCAL_NODES for the runs, default
// on: the zoo's workloads need pods that run) and -capabilities
// (ZOO_CAPABILITIES: only those capabilities' suites, conform's
// --capabilities).
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
// page shows it).
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

	"github.com/steadystate-dev/steadystate/evidence"
	"github.com/steadystate-dev/steadystate/reports/html"
	"github.com/steadystate-dev/steadystate/zoo"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
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
	if *runs < 1 {
		return false, fmt.Errorf("zoo: -runs %d (ZOO_RUNS): give a count of 1 or more", *runs)
	}
	var pick []string
	for _, s := range strings.Split(*subjects, ",") {
		if s = strings.TrimSpace(s); s != "" {
			pick = append(pick, s)
		}
	}
	artifacts, err := filepath.Abs(filepath.Join(*artifactsRoot, "zoo"))
	if err != nil {
		return false, err
	}
	program, err := filepath.Abs(*steadystate)
	if err != nil {
		return false, err
	}
	if _, err := os.Stat(program); err != nil {
		return false, fmt.Errorf("zoo: the steadystate program %s: %v; build it with `make steadystate` (make zoo does)", program, err)
	}
	cfg := zoo.Config{Dir: *dir, Subjects: pick, Runs: *runs, Steadystate: program,
		Artifacts: artifacts, Env: []string{"LOCAL_NODES=" + *nodes}}
	for _, c := range strings.Split(*capabilities, ",") {
		if c = strings.TrimSpace(c); c != "" {
			cfg.Capabilities = append(cfg.Capabilities, c)
		}
	}
	picked, err := zoo.Subjects(cfg.Dir, cfg.Subjects)
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		return false, err
	}
	fmt.Fprintf(os.Stderr, "zoo: %d subject(s) x %d run(s) on the local cluster with simulated nodes LOCAL_NODES=%s; artifacts in %s\n", len(picked), *runs, *nodes, artifacts)
	m, err := zoo.RunAll(ctx, cfg, picked, os.Stderr)
	if m != nil {
		ok := m.Print(os.Stdout)
		fmt.Fprintf(os.Stdout, "zoo: matrix kept in %s (zoo.json, zoo.md)\n", artifacts)
		return ok, err
	}
	return false, err
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
	program, err := filepath.Abs(steadystate)
	if err != nil {
		return false, err
	}
	if _, err := os.Stat(program); err != nil {
		return false, fmt.Errorf("zoo-repro: the steadystate program %s: %v; build it with `make steadystate` (make zoo-repro does)", program, err)
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
