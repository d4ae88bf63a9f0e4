package reports

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/steadystate-dev/steadystate/verdict"
)

// Gate prints the summary of the report at path and fails when a spec did
// not pass or none ran, so it can gate a pipeline. A Ginkgo JSON report
// (report.json) is summarised by verdict: broken (named properties: a
// finding), error, skipped; a JUnit file by status.
func Gate(path string, stdout io.Writer) error {
	if strings.HasSuffix(path, ".json") {
		return verdictReport(path, stdout)
	}
	s, err := ReadJUnit(path)
	if err != nil {
		return err
	}
	s.Print(stdout, "e2e")
	switch {
	case s.Failed > 0:
		return fmt.Errorf("%d spec(s) failed; see %s", s.Failed, path)
	case s.Passed == 0:
		return errors.New("no spec passed: the report is empty or everything was skipped")
	}
	return nil
}

// verdictReport prints one line per spec with its outcome, the broken
// properties or the reason, and a closing line
// "e2e: N passed, N failed, N skipped (N broken, N error)".
func verdictReport(path string, stdout io.Writer) error {
	reps, err := verdict.ReadReport(path)
	if err != nil {
		return err
	}
	count := PrintVerdicts(reps, "e2e", stdout)
	failed := count[verdict.BrokenSpec] + count[verdict.Error]
	switch {
	case count[verdict.BrokenSpec] > 0:
		return fmt.Errorf("%d spec(s) broke a property (findings) and %d ended in an error; see %s", count[verdict.BrokenSpec], count[verdict.Error], path)
	case failed > 0:
		return fmt.Errorf("%d spec(s) ended in an error (not a finding: the harness or the subject's set-up); see %s", failed, path)
	case count[verdict.Passed] == 0:
		return errors.New("no spec passed: the report is empty or everything was skipped")
	}
	return nil
}
