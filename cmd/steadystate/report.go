package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/steadystate-dev/steadystate/reports"
)

// reportCommand prints a JUnit report's summary and fails when a spec failed
// or none ran, so it can gate a pipeline.
func reportCommand(args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return fmt.Errorf("%w: report takes one JUnit file", errUsage)
	}
	s, err := reports.ReadJUnit(args[0])
	if err != nil {
		return err
	}
	s.Print(stdout, "e2e")
	switch {
	case s.Failed > 0:
		return fmt.Errorf("%d spec(s) failed; see %s", s.Failed, args[0])
	case s.Passed == 0:
		return errors.New("no spec passed: the report is empty or everything was skipped")
	}
	return nil
}
