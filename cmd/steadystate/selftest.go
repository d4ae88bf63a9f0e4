package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/reports"
)

// selftestCells is the self-test matrix: every suite against its reference
// subject in the correct mode and in each bug mode it must catch.
var selftestCells = []reports.Cell{
	{Suite: "lostevents", Subject: "workload"},
	{Suite: "lostevents", Subject: "workload", Bug: "expectations-never-expire"},
	{Suite: "lostevents", Subject: "workload", Bug: "no-expectations"},
	{Suite: "leader", Subject: "leader"},
	{Suite: "leader", Subject: "leader", Bug: "start-leader-runnables-on-shutdown"},
	{Suite: "leader", Subject: "leader", Bug: "ignore-lost-lease"},
	{Suite: "foreground", Subject: "composite"},
	{Suite: "foreground", Subject: "composite", Bug: "deleting-status-not-persisted"},
	{Suite: "foreground", Subject: "composite", Bug: "no-blocking-reason"},
	{Suite: "foreground", Subject: "composite", Bug: "external-name-reuse"},
	{Suite: "finalizer", Subject: "cluster"},
	{Suite: "finalizer", Subject: "cluster", Bug: "strip-then-delete"},
	{Suite: "finalizer", Subject: "cluster", Bug: "finalizer-while-deleting"},
	{Suite: "finalizer", Subject: "cluster", Bug: "cleanup-while-paused"},
}

// selftestCommand runs the matrix SELFTEST_REPEAT times (default 1) from
// the module root and fails unless every correct mode passed and every bug
// was caught, every time.
func selftestCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		return fmt.Errorf("%w: selftest takes no arguments (use SELFTEST_REPEAT)", errUsage)
	}
	selected, err := cellsOf(os.Getenv("SELFTEST_SUITES"))
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join("suites", "lostevents")); err != nil {
		return errors.New("selftest runs the suites from source: run it in the steadystate module's root folder (make selftest does)")
	}
	repeat := 1
	if v := os.Getenv("SELFTEST_REPEAT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("SELFTEST_REPEAT=%q is not a positive number", v)
		}
		repeat = n
	}
	root := os.Getenv("ARTIFACTS")
	if root == "" {
		root = "_artifacts"
	}
	root, _ = filepath.Abs(filepath.Join(root, "selftest"))
	start := time.Now()
	cells := make([]reports.Cell, len(selected))
	for i, cell := range selected {
		for n := 1; n <= repeat; n++ {
			dir := filepath.Join(root, cell.Suite, cell.Subject+"-"+cell.Mode(), strconv.Itoa(n))
			run := runCell(ctx, cell, dir)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			cell.Runs = append(cell.Runs, run)
			fmt.Fprintf(stderr, "selftest: %s x %s/%s run %d/%d: %s in %s\n", cell.Suite, cell.Subject, cell.Mode(), n, repeat, outcome(run), run.Took.Round(100*time.Millisecond))
		}
		cells[i] = cell
	}
	fmt.Fprintf(stdout, "\nself-test matrix (%d run(s) per cell, %s in all; details in %s)\n", repeat, time.Since(start).Round(time.Second), root)
	if !reports.PrintMatrix(stdout, cells) {
		return fmt.Errorf("the self-test failed: a correct mode did not pass or a bug was not caught every time")
	}
	return nil
}

// cellsOf is the matrix, or its rows for a comma-separated list of suites
// (SELFTEST_SUITES), refusing names that are not suites of it.
func cellsOf(suites string) ([]reports.Cell, error) {
	if suites == "" {
		return selftestCells, nil
	}
	known := map[string]bool{}
	for _, c := range selftestCells {
		known[c.Suite] = true
	}
	want := map[string]bool{}
	for _, s := range strings.Split(suites, ",") {
		if !known[s] {
			return nil, fmt.Errorf("SELFTEST_SUITES=%q: %q is not a suite of the matrix (lostevents, leader, foreground, finalizer)", suites, s)
		}
		want[s] = true
	}
	var out []reports.Cell
	for _, c := range selftestCells {
		if want[c.Suite] {
			out = append(out, c)
		}
	}
	return out, nil
}

func outcome(r reports.Run) string {
	switch {
	case r.Error != "":
		return "error (" + r.Error + ")"
	case r.Failed:
		return "failed: " + r.Property
	}
	return "passed"
}

// runCell runs one suite with the subject mode and reads its JUnit report.
func runCell(ctx context.Context, cell reports.Cell, dir string) reports.Run {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return reports.Run{Error: err.Error()}
	}
	log, err := os.Create(filepath.Join(dir, "ginkgo.log"))
	if err != nil {
		return reports.Run{Error: err.Error()}
	}
	defer log.Close()
	cmd := exec.CommandContext(ctx, "go", "tool", "ginkgo", "--no-color", "--junit-report=junit.xml", "--output-dir="+dir, "./suites/"+cell.Suite)
	cmd.Env = append(os.Environ(), "SUBJECT="+cell.Subject, "SUBJECT_BUG="+cell.Bug, "ARTIFACTS="+dir)
	cmd.Stdout, cmd.Stderr = log, log
	start := time.Now()
	_ = cmd.Run() // the verdict comes from the report, not the exit code
	run := reports.Run{Took: time.Since(start)}
	summary, err := reports.ReadJUnit(filepath.Join(dir, "junit.xml"))
	if err != nil {
		run.Error = fmt.Sprintf("no report (%v); see %s", err, log.Name())
		return run
	}
	for _, c := range summary.Cases {
		if c.Status != "failed" {
			continue
		}
		property := reports.FirstProperty(c.Message)
		switch {
		case !strings.HasPrefix(c.Name, "[It]"):
			run.Error = fmt.Sprintf("%s failed: %s", c.Name, property)
		case strings.HasPrefix(property, "assumption"):
			run.Error = property
		case !run.Failed:
			run.Failed, run.Property = true, property
		}
	}
	if summary.Passed+summary.Failed == 0 && run.Error == "" {
		run.Error = "no spec ran"
	}
	return run
}
