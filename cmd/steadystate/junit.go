package main

import (
	"fmt"
	"io"

	"github.com/steadystate-dev/steadystate/matrix"
)

// junitCommand writes JUnit for CI tools from a Ginkgo JSON report: one
// testcase per spec, valid against the schema Jenkins publishes
// (junit-10.xsd), findings as failures and harness errors as errors.
func junitCommand(args []string, stdout io.Writer) error {
	if len(args) != 2 {
		return fmt.Errorf("%w: junit takes a Ginkgo JSON report (report.json) and the JUnit file to write", errUsage)
	}
	if err := matrix.WriteJUnit(args[0], args[1]); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "junit: %s\n", args[1])
	return nil
}
