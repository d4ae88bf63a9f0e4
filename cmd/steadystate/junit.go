package main

import (
	"fmt"
	"io"

	"github.com/steadystate-dev/steadystate/internal/atomicfile"
	"github.com/steadystate-dev/steadystate/reports"
	"github.com/steadystate-dev/steadystate/verdict"
)

// junitCommand writes JUnit for CI tools from a Ginkgo JSON report: one
// testcase per spec, valid against the schema Jenkins publishes
// (junit-10.xsd), findings as failures and harness errors as errors.
func junitCommand(args []string, stdout io.Writer) error {
	if len(args) != 2 {
		return fmt.Errorf("%w: junit takes a Ginkgo JSON report (report.json) and the JUnit file to write", errUsage)
	}
	return writeJUnit(args[0], args[1], stdout)
}

// writeJUnit writes report's specs as JUnit to out, replacing it whole.
func writeJUnit(report, out string, stdout io.Writer) error {
	reps, err := verdict.ReadReport(report)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(out, func(w io.Writer) error { return reports.WriteJUnit(w, "steadystate", reps) }); err != nil {
		return err
	}
	if stdout != nil {
		fmt.Fprintf(stdout, "junit: %s\n", out)
	}
	return nil
}
