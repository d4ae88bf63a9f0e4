// Command zoo runs `steadystate conform` over the zoo's subject files and
// prints the matrix (package zoo). `make zoo` runs it; its settings come
// from the environment, read once here: ZOO_RUNS (runs per subject,
// default 1), ZOO_SUBJECTS (comma-separated file stems, default all),
// ZOO_DIR (default fixtures/zoo), STEADYSTATE (the program, default
// bin/steadystate), ARTIFACTS (the runs go below ARTIFACTS/zoo) and
// LOCAL_NODES (default on: the zoo's workloads need pods that run).
package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

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
	runs, err := strconv.Atoi(cmp.Or(os.Getenv("ZOO_RUNS"), "1"))
	if err != nil || runs < 1 {
		return false, fmt.Errorf("zoo: ZOO_RUNS=%q is not a number of runs: give a count of 1 or more", os.Getenv("ZOO_RUNS"))
	}
	var pick []string
	for _, s := range strings.Split(os.Getenv("ZOO_SUBJECTS"), ",") {
		if s = strings.TrimSpace(s); s != "" {
			pick = append(pick, s)
		}
	}
	artifacts, err := filepath.Abs(filepath.Join(cmp.Or(os.Getenv("ARTIFACTS"), "_artifacts"), "zoo"))
	if err != nil {
		return false, err
	}
	program, err := filepath.Abs(cmp.Or(os.Getenv("STEADYSTATE"), "bin/steadystate"))
	if err != nil {
		return false, err
	}
	if _, err := os.Stat(program); err != nil {
		return false, fmt.Errorf("zoo: the steadystate program %s: %v; build it with `make steadystate` (make zoo does), or name it in STEADYSTATE", program, err)
	}
	nodes := cmp.Or(os.Getenv("LOCAL_NODES"), "on")
	cfg := zoo.Config{Dir: cmp.Or(os.Getenv("ZOO_DIR"), "fixtures/zoo"), Subjects: pick, Runs: runs, Steadystate: program,
		Artifacts: artifacts, Env: []string{"LOCAL_NODES=" + nodes}}
	subjects, err := zoo.Subjects(cfg.Dir, cfg.Subjects)
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		return false, err
	}
	fmt.Fprintf(os.Stderr, "zoo: %d subject(s) x %d run(s) on the local cluster with simulated nodes LOCAL_NODES=%s; artifacts in %s\n", len(subjects), runs, nodes, artifacts)
	m, err := zoo.RunAll(ctx, cfg, subjects, os.Stderr)
	if m != nil {
		ok := m.Print(os.Stdout)
		fmt.Fprintf(os.Stdout, "zoo: matrix kept in %s (zoo.json, zoo.md)\n", artifacts)
		return ok, err
	}
	return false, err
}
