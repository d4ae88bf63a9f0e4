package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// The JUnit document, as the schema Jenkins' xUnit plugin publishes
// (junit-10.xsd) allows it: Ginkgo's own writer adds attributes the schema
// does not have (status, disabled).
type (
	junitOut struct {
		XMLName  xml.Name        `xml:"testsuites"`
		Name     string          `xml:"name,attr"`
		Tests    int             `xml:"tests,attr"`
		Failures int             `xml:"failures,attr"`
		Errors   int             `xml:"errors,attr"`
		Time     string          `xml:"time,attr"`
		Suites   []junitSuiteOut `xml:"testsuite"`
	}
	junitSuiteOut struct {
		Name      string         `xml:"name,attr"`
		Tests     int            `xml:"tests,attr"`
		Failures  int            `xml:"failures,attr"`
		Errors    int            `xml:"errors,attr"`
		Skipped   int            `xml:"skipped,attr"`
		Time      string         `xml:"time,attr"`
		Timestamp string         `xml:"timestamp,attr,omitempty"`
		Cases     []junitCaseOut `xml:"testcase"`
	}
	junitCaseOut struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		Skipped   *junitTextOut `xml:"skipped"`
		Error     *junitTextOut `xml:"error"`
		Failure   *junitTextOut `xml:"failure"`
	}
	junitTextOut struct {
		Type    string `xml:"type,attr"`
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
)

// NotBoundCase names the JUnit testcase of property id, not bound in spec.
func NotBoundCase(spec, id string) string { return spec + " [property " + id + "]" }

func seconds(s float64) string { return fmt.Sprintf("%.3f", s) }

// WriteJUnit writes the specs of Ginkgo's reports as JUnit that validates
// against junit-10.xsd, the way Kubernetes writes its e2e JUnit: one
// testcase per spec, a suite's set-up nodes only when they failed, and the
// timeline only for a spec that did not pass. A spec that broke properties
// (a finding) is a <failure> whose message has one line per broken
// property; an error (set-up, crash, an assumption that did not hold) is
// an <error>; a skipped spec is <skipped> with its reason. Each property a
// spec recorded as not bound is a <skipped> testcase of its own
// (NotBoundCase), whose message says what the binding lacks.
func WriteJUnit(w io.Writer, name string, reps []types.Report) error {
	doc := junitOut{Name: name}
	var total time.Duration
	for _, rep := range reps {
		suite := junitSuiteOut{Name: rep.SuiteDescription, Time: seconds(rep.RunTime.Seconds())}
		if !rep.StartTime.IsZero() {
			suite.Timestamp = rep.StartTime.UTC().Format(time.RFC3339)
		}
		total += rep.RunTime
		for _, s := range verdict.Specs(rep) {
			c := junitCaseOut{Name: s.Name, Classname: s.Suite, Time: seconds(s.Seconds)}
			switch s.Outcome {
			case verdict.BrokenSpec:
				suite.Failures++
				c.Failure = &junitTextOut{Type: "broken", Message: verdict.Message(s.Records), Text: detail(s)}
			case verdict.Error:
				suite.Errors++
				c.Error = &junitTextOut{Type: "error", Message: s.Reason, Text: detail(s)}
			case verdict.SkippedSpec:
				suite.Skipped++
				c.Skipped = &junitTextOut{Type: "skipped", Message: s.Reason}
			}
			suite.Tests++
			suite.Cases = append(suite.Cases, c)
			// A property the binding cannot judge is a skipped line of
			// its own, so a pass is never read as covering it.
			for _, r := range s.NotBound() {
				suite.Tests++
				suite.Skipped++
				suite.Cases = append(suite.Cases, junitCaseOut{Name: NotBoundCase(s.Name, r.ID), Classname: s.Suite, Time: seconds(0),
					Skipped: &junitTextOut{Type: string(verdict.NotBound), Message: "not bound: " + r.Reason}})
			}
		}
		doc.Tests += suite.Tests
		doc.Failures += suite.Failures
		doc.Errors += suite.Errors
		doc.Suites = append(doc.Suites, suite)
	}
	doc.Time = seconds(total.Seconds())
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// detail is what a spec that did not pass shows: its property records,
// then Ginkgo's timeline of the spec (steps, failures, report entries).
func detail(s verdict.Spec) string {
	var b strings.Builder
	for _, r := range s.Records {
		fmt.Fprintln(&b, r)
	}
	if s.Report != nil {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(reporters.RenderTimeline(*s.Report, true))
	}
	return b.String()
}
