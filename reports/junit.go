package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// junitSuites is the subset of Ginkgo's JUnit report that summaries need.
type junitSuites struct {
	Suites []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name  string      `xml:"name,attr"`
	Cases []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name    string        `xml:"name,attr"`
	Status  string        `xml:"status,attr"`
	Time    float64       `xml:"time,attr"`
	Failure *junitMessage `xml:"failure"`
	Error   *junitMessage `xml:"error"`
	Skipped *junitMessage `xml:"skipped"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
}

// Case is one spec's outcome.
type Case struct {
	Suite, Name, Status, Message string
	Seconds                      float64
}

// Summary counts a report's specs. Suite-level nodes such as
// [BeforeSuite] are not specs, but their failures are counted as failures.
// Errors are the failures that are no finding: an <error> with no
// <failure> (a harness error, as steadystate junit writes it), or Ginkgo's
// panicked, timed out, interrupted or aborted.
type Summary struct {
	Passed, Failed, Skipped, Errors int
	Cases                           []Case
}

// ReadJUnit parses a JUnit file written by Ginkgo.
func ReadJUnit(path string) (Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return Summary{}, fmt.Errorf("read report: %w", err)
	}
	defer f.Close()
	s, err := ParseJUnit(f)
	if err != nil {
		return Summary{}, fmt.Errorf("report %s does not parse as JUnit: %w", path, err)
	}
	return s, nil
}

// ParseJUnit parses JUnit XML.
func ParseJUnit(r io.Reader) (Summary, error) {
	var doc junitSuites
	if err := xml.NewDecoder(r).Decode(&doc); err != nil {
		return Summary{}, err
	}
	var s Summary
	for _, suite := range doc.Suites {
		for _, tc := range suite.Cases {
			c := Case{Suite: suite.Name, Name: tc.Name, Status: status(tc), Seconds: tc.Time}
			if m := firstMessage(tc.Failure, tc.Error, tc.Skipped); m != nil {
				c.Message = m.Message
			}
			// Specs are "[It] ..."; suite-level nodes are "[BeforeSuite]",
			// "[ReportAfterSuite] ..." and the like.
			suiteNode := strings.HasPrefix(tc.Name, "[") && !strings.HasPrefix(tc.Name, "[It]")
			switch {
			case c.Status == "failed":
				s.Failed++
				if harnessError(tc) {
					s.Errors++
				}
			case suiteNode:
				continue
			case c.Status == "skipped":
				s.Skipped++
			default:
				s.Passed++
			}
			s.Cases = append(s.Cases, c)
		}
	}
	return s, nil
}

// status maps Ginkgo's statuses (passed, failed, skipped, pending, panicked,
// interrupted, timedout, aborted) onto passed, failed and skipped.
func status(tc junitCase) string {
	switch tc.Status {
	case "passed":
		return "passed"
	case "skipped", "pending":
		return "skipped"
	case "":
		switch {
		case tc.Failure != nil || tc.Error != nil:
			return "failed"
		case tc.Skipped != nil:
			return "skipped"
		}
		return "passed"
	default:
		return "failed"
	}
}

// harnessError says whether a failed case is no finding: an <error>
// alone, or a Ginkgo status other than failed.
func harnessError(tc junitCase) bool {
	switch tc.Status {
	case "", "failed":
		return tc.Error != nil && tc.Failure == nil
	}
	return true
}

func firstMessage(ms ...*junitMessage) *junitMessage {
	for _, m := range ms {
		if m != nil {
			return m
		}
	}
	return nil
}

// Print writes one line per spec and a closing line of the form
// "<label>: N passed, N failed, N skipped".
func (s Summary) Print(w io.Writer, label string) {
	for _, c := range s.Cases {
		line := fmt.Sprintf("%-7s %6.1fs  %s: %s", strings.ToUpper(c.Status), c.Seconds, c.Suite, c.Name)
		if c.Status == "failed" && c.Message != "" {
			line += "\n          " + verdict.OneLine(c.Message)
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "%s: %d passed, %d failed, %d skipped\n", label, s.Passed, s.Failed, s.Skipped)
}
