package main

import (
	"fmt"
	"io"

	"github.com/steadystate-dev/steadystate/reports"
)

// reportCommand prints a report's summary and fails when a spec did not
// pass or none ran, so it can gate a pipeline. A Ginkgo JSON report
// (report.json) is summarised by verdict: broken (named properties: a
// finding), error, skipped; a JUnit file by status.
func reportCommand(args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return fmt.Errorf("%w: report takes one file: a Ginkgo JSON report (report.json) or JUnit (junit.xml)", errUsage)
	}
	return reports.Gate(args[0], stdout)
}
