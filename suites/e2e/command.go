package e2e

// The suite and e2e commands, as the steadystate program runs them: one
// suite in this process, or every suite in child processes.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/steadystate-dev/steadystate/cluster"
	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/internal/config"
	"github.com/steadystate-dev/steadystate/internal/proc"
	"github.com/steadystate-dev/steadystate/reports"
	"github.com/steadystate-dev/steadystate/suites"
)

// SuiteCommand is the suite command: it runs one suite in this process, as its test binary would:
// the matrix runs (conform, selftest, upstream) start one child process
// per cell with it, so an installed steadystate runs the suites with no
// source tree. The suite's configuration comes from the environment (as
// for make e2e) and the flags; when a spec did not pass, it exits with its
// report's result's code (1 for a finding, 3 for an error): the report is
// the one -ginkgo.json-report names, or one of its own.
func SuiteCommand(args []string) error {
	if cli.WantsHelp(args) {
		return cli.HelpRequest{Text: suiteHelp()}
	}
	if len(args) == 0 {
		return fmt.Errorf("%w: suite needs a suite name: one of %s", cli.ErrUsage, suites.Names())
	}
	proc.SetGCPercent()
	report, given := JSONReport(args[1:])
	if !given {
		dir, err := os.MkdirTemp("", "steadystate-suite-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		report = filepath.Join(dir, ReportName)
		args = append(args, "-ginkgo.json-report="+report)
	}
	passed, err := suites.Run(args[0], args[1:])
	if errors.Is(err, suites.ErrFlags) {
		return fmt.Errorf("%w: %v", cli.ErrUsage, err)
	}
	if err != nil {
		return err
	}
	if !passed {
		return suiteFailed(report)
	}
	return nil
}

// ErrSuiteFailed is a suite run whose specs did not all pass: Ginkgo's
// output already says which, so the program prints nothing more.
var ErrSuiteFailed = errors.New("a spec did not pass")

// suiteFailed is ErrSuiteFailed marked with the kind of the result of the
// report at path: a finding, or (an error, nothing judged, no report, a
// report that says the suites passed though they did not) a harness
// error.
func suiteFailed(path string) error {
	word, _, err := reports.ReportResult(path)
	if err != nil || word != reports.ResultNotPassed {
		return cli.Mark(cli.ErrHarness, ErrSuiteFailed)
	}
	return cli.Mark(cli.ErrFinding, ErrSuiteFailed)
}

// suiteHelp is the suite command's usage with the suites' own flags.
func suiteHelp() string {
	cmd := cli.New("suite", "suite NAME [FLAGS]",
		"Runs one suite in this process, as its test binary would, with Ginkgo's -ginkgo.* flags\n"+
			"(see 'go tool ginkgo help run') and the flags below; the matrix commands run each cell\n"+
			"so. It exits 1 when a spec broke a property and 3 when one ended in an error. The suites: "+suites.Names()+", "+suites.ControlPlane.Name+".")
	suites.Flags(cmd.FS)
	return cmd.Help()
}

// Command is the e2e command: it runs every suite of make e2e, each in a child process of this
// program, and writes their merged Ginkgo JSON report to the artifacts
// folder; when a suite did not pass, it exits with the merged report's
// result's code (1 for a finding, 3 for an error or a suite not run).
func Command(ctx context.Context, cfg config.Settings, args []string, stdout, stderr io.Writer) error {
	cmd := cli.New("e2e", "e2e [--artifacts DIR] [--parallel N] [GINKGO FLAGS] [-- SUITE FLAGS]",
		"Runs every suite ("+Names(suites.E2E())+"), each in a child process of this program\n"+
			"('steadystate suite NAME') with a cluster of its own, --parallel at a time: every suite runs\n"+
			"and is judged whichever failed before it. Above one at a time, "+inParts(suites.E2E())+",\n"+
			"each part its own process and a suite of the report. Their Ginkgo JSON reports are merged into DIR/"+ReportName+" (read by\n"+
			"'steadystate junit', 'html' and 'report'). It exits 1 when a spec broke a property, 3 when\n"+
			"one ended in an error or a suite did not run (docs/conformance.md, \"Exit codes\").\n"+
			"GINKGO FLAGS are the ginkgo command's names of the suites' Ginkgo flags (below), e.g.\n"+
			"--label-filter=capability:scalable -v; SUITE FLAGS those of 'steadystate suite -h'.")
	artifacts := cmd.FS.String("artifacts", cfg.Artifacts, "the run's `folder`: the suites' artifacts and "+ReportName+"; its default is ARTIFACTS, else _artifacts")
	parallel := 1
	if cfg.Provider == "" || cfg.Provider == cluster.Local {
		parallel = 3 // a local control plane is a few processes: three fit two cores
	}
	cmd.FS.IntVar(&parallel, "parallel", parallel, "run `N` suites side by side, each output written whole when it ends (local only; default 3 there, 1 on kind and existing)")
	var ginkgo []string
	GinkgoFlags(cmd.FS, &ginkgo)
	if err := cmd.Parse(args); err != nil {
		return NotForSuites(err)
	}
	if parallel < 1 || parallel > 1 && cfg.Provider != "" && cfg.Provider != cluster.Local {
		return fmt.Errorf("%w: e2e --parallel %d: suites run side by side only on PROVIDER=local (a control plane each), at least 1", cli.ErrUsage, parallel)
	}
	suiteFlags, err := SuiteFlags(args, cmd.FS.Args())
	if err != nil {
		return fmt.Errorf("%w: e2e: %v", cli.ErrUsage, err)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find this program to run the suites with: %w", err)
	}
	passed, err := Run(ctx, Config{Program: self, Suites: suites.E2E(), Artifacts: *artifacts,
		Ginkgo: ginkgo, SuiteFlags: suiteFlags, Stdout: stdout, Stderr: stderr, Parallel: parallel})
	if err != nil {
		return err
	}
	if !passed {
		return suiteFailed(filepath.Join(*artifacts, ReportName))
	}
	return nil
}

// inParts says which of ss run in parts (suites.Suite.Parts), and in how
// many.
func inParts(ss []suites.Suite) string {
	var out []string
	for _, s := range ss {
		if s.Parts > 1 {
			out = append(out, fmt.Sprintf("suite %s runs in %d parts", s.Name, s.Parts))
		}
	}
	if len(out) == 0 {
		return "no suite runs in parts"
	}
	return strings.Join(out, ", ")
}
