package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// Gate prints the summary of the report at path and fails unless its
// result is a pass, so it can gate a pipeline; its failure is marked with
// the result's kind (Kind), which decides the exit code: a finding, an
// error or nothing judged, or, with failOnGaps, a pass with gaps. A
// Ginkgo JSON report (report.json) is summarised by verdict: broken (named
// properties: a finding), error, skipped; a JUnit file by status, where a
// <failure> is a finding and an <error> (or Ginkgo's panicked, timed out,
// interrupted or aborted) an error, as steadystate junit writes them.
func Gate(path string, failOnGaps bool, stdout io.Writer) error {
	if strings.HasSuffix(path, ".json") {
		return verdictReport(path, failOnGaps, stdout)
	}
	s, err := ReadJUnit(path)
	if err != nil {
		return err
	}
	s.Print(stdout, "e2e")
	switch {
	case s.Failed > s.Errors:
		return Fail(ResultNotPassed, failOnGaps, fmt.Sprintf("%d spec(s) failed, %d of them with an error; see %s", s.Failed, s.Errors, path))
	case s.Failed > 0:
		return Fail(ResultError, failOnGaps, fmt.Sprintf("%d spec(s) ended in an error (not a finding: the harness or the subject's set-up); see %s", s.Failed, path))
	case s.Passed == 0:
		return Fail(ResultError, failOnGaps, "no spec passed: the report is empty or everything was skipped")
	}
	return nil
}

// ReportResult is the result of the Ginkgo JSON report at path, as Gate
// says it.
func ReportResult(path string) (word, detail string, err error) {
	reps, err := verdict.ReadReport(path)
	if err != nil {
		return "", "", err
	}
	var specs []verdict.Spec
	for _, rep := range reps {
		specs = append(specs, verdict.Specs(rep)...)
	}
	word, detail = Result(specs)
	return word, detail, nil
}

// verdictReport prints one line per spec with its outcome, the broken
// properties or the reason, a closing line
// "e2e: N passed, N failed, N skipped (N broken, N error)" and the result.
func verdictReport(path string, failOnGaps bool, stdout io.Writer) error {
	reps, err := verdict.ReadReport(path)
	if err != nil {
		return err
	}
	count := PrintVerdicts(reps, "e2e", stdout)
	var specs []verdict.Spec
	for _, rep := range reps {
		specs = append(specs, verdict.Specs(rep)...)
	}
	word, detail := Result(specs)
	switch word {
	case ResultNotPassed:
		return Fail(word, failOnGaps, fmt.Sprintf("%d spec(s) broke a property (findings) and %d ended in an error; see %s", count[verdict.BrokenSpec], count[verdict.Error], path))
	case ResultError:
		if count[verdict.Error] > 0 {
			return Fail(word, failOnGaps, fmt.Sprintf("%d spec(s) ended in an error (not a finding: the harness or the subject's set-up); see %s", count[verdict.Error], path))
		}
		return Fail(word, failOnGaps, "no spec passed: the report is empty or everything was skipped")
	}
	return Fail(word, failOnGaps, fmt.Sprintf("%s: %s (--fail-on-gaps)", path, Line(word, detail)))
}
