package verdict

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
)

// SpecOutcome is how one spec ended. Only Broken is a finding.
type SpecOutcome string

// The spec outcomes.
const (
	Passed      SpecOutcome = "passed"
	BrokenSpec  SpecOutcome = "broken"
	Error       SpecOutcome = "error"
	SkippedSpec SpecOutcome = "skipped"
)

// CapabilityNotBound begins the skip message of a spec whose capability
// the subject does not bind: its properties are not bound, which is no
// gap in a run (a gap is a bound capability's spec that was skipped).
const CapabilityNotBound = "capability not bound: "

// Spec is one spec's verdict.
type Spec struct {
	Suite string `json:"suite"`
	Name  string `json:"name"`
	// Subject is the subject the spec ran, with its mode: "composite
	// (correct)", "replicaset (subject file)"; "" when it named none
	// (SubjectEntry).
	Subject string      `json:"subject,omitempty"`
	Outcome SpecOutcome `json:"outcome"`
	// Broken are the ids of the properties that broke (Outcome broken).
	Broken []string `json:"broken,omitempty"`
	// Reason explains an error or a skip.
	Reason  string   `json:"reason,omitempty"`
	Records []Record `json:"records,omitempty"`
	// Declared are the ids of the properties the spec declares it must
	// judge (its "judges:" labels, see Declaration), also when it was
	// skipped or ended before its checks.
	Declared []string `json:"declared,omitempty"`
	Seconds  float64  `json:"seconds"`
	// Report is Ginkgo's report of the spec or suite node it comes from
	// (with its timeline), when there is one.
	Report *types.SpecReport `json:"-"`
}

// RecordReadable is the premise that every property record a spec
// attached reads back: an entry named EntryName that does not decode is
// recorded as this premise broken, naming the entry, so the spec is an
// error and never passes on the records that happened to be readable.
var RecordReadable = Property{ID: "evidence/records-readable", Stage: Assumption,
	Sentence: "every property record attached to the spec's report reads back as a record"}

// SubjectEntry names the Ginkgo report entry in which a spec names the
// subject it ran and its mode.
const SubjectEntry = "steadystate.subject"

// SubjectOf is the subject a spec's report names (SubjectEntry), or "".
func SubjectOf(r types.SpecReport) string {
	for _, e := range r.ReportEntries {
		if e.Name == SubjectEntry {
			return e.StringRepresentation()
		}
	}
	return ""
}

// Records reads the property records a spec attached to its report. An
// entry that does not read as a record is a broken RecordReadable.
func Records(r types.SpecReport) []Record {
	var out []Record
	for i, e := range r.ReportEntries {
		if e.Name != EntryName {
			continue
		}
		if rec, ok := e.Value.GetRawValue().(Record); ok {
			out = append(out, rec)
			continue
		}
		var rec Record
		err := json.Unmarshal([]byte(e.Value.AsJSON), &rec)
		if err == nil && (rec.ID == "" || rec.Outcome == "") {
			err = errors.New("it names no property or no outcome")
		}
		if err != nil {
			where := ""
			if e.Location.FileName != "" {
				where = fmt.Sprintf(" at %s:%d", shortPath(e.Location.FileName), e.Location.LineNumber)
			}
			out = append(out, Record{Property: RecordReadable, Outcome: Broken,
				Reason: fmt.Sprintf("report entry %d (%s%s) does not read as a property record: %v: %.120q", i+1, e.Name, where, err, e.Value.AsJSON)})
			continue
		}
		out = append(out, rec)
	}
	return out
}

// Classify judges one spec from its report and the records it attached.
func Classify(suite string, r types.SpecReport) Spec {
	s := Spec{Suite: suite, Name: specName(r), Subject: SubjectOf(r), Records: Records(r), Declared: Declared(r.Labels()), Seconds: r.RunTime.Seconds(), Report: &r}
	broken := BrokenIDs(s.Records)
	switch {
	case r.State.Is(types.SpecStateSkipped | types.SpecStatePending):
		s.Outcome = SkippedSpec
		s.Reason = OneLine(r.Failure.Message)
		if s.Reason == "" {
			s.Reason = "skipped by the run's filters"
		}
	case r.State.Is(types.SpecStatePanicked | types.SpecStateInterrupted | types.SpecStateAborted | types.SpecStateTimedout):
		s.Outcome, s.Reason = Error, fmt.Sprintf("%s: %s", r.State, failure(r))
	case r.State == types.SpecStateFailed:
		if a, ok := FailedAssumption(s.Records); ok {
			s.Outcome, s.Reason = Error, fmt.Sprintf("assumption %s did not hold: %s", a.ID, a.Reason)
		} else if len(broken) > 0 {
			s.Outcome, s.Broken = BrokenSpec, broken
		} else {
			s.Outcome, s.Reason = Error, "failed outside any property: "+failure(r)
		}
	default: // passed
		s.Outcome = Passed
		for _, rec := range s.Records {
			if rec.Outcome != Held && rec.Outcome != NotBound {
				s.Outcome, s.Reason = Error, fmt.Sprintf("the spec passed but %s is %s: %s", rec.ID, rec.Outcome, rec.Reason)
				break
			}
		}
		if s.Outcome != Passed {
			break
		}
		if missing := s.Missing(); len(missing) > 0 {
			s.Outcome, s.Reason = Error, "the spec passed but recorded no verdict of "+strings.Join(missing, ", ")+", which it declares it judges"
		} else if len(s.Records) == 0 {
			s.Outcome, s.Reason = Error, "the spec passed but judged nothing: it declares no property and recorded none"
		}
	}
	return s
}

// Missing are the ids the spec declares and recorded no verdict of.
func (s Spec) Missing() []string {
	var out []string
	for _, id := range s.Declared {
		if !slices.ContainsFunc(s.Records, func(r Record) bool { return r.ID == id }) {
			out = append(out, id)
		}
	}
	return out
}

// CapabilityUnbound says the spec was skipped because the subject does
// not bind its capability (CapabilityNotBound).
func (s Spec) CapabilityUnbound() bool {
	return s.Outcome == SkippedSpec && strings.HasPrefix(s.Reason, CapabilityNotBound)
}

// NotBound are the spec's not-bound records, one per property.
func (s Spec) NotBound() []Record {
	var out []Record
	for _, r := range s.Records {
		if r.Outcome == NotBound && !slices.ContainsFunc(out, func(o Record) bool { return o.ID == r.ID }) {
			out = append(out, r)
		}
	}
	return out
}

// Judged says whether the spec judged property id: it recorded it held
// or broken.
func (s Spec) Judged(id string) bool {
	return slices.ContainsFunc(s.Records, func(r Record) bool {
		return r.ID == id && (r.Outcome == Held || r.Outcome == Broken)
	})
}

// Specs classifies every spec of a suite's report. A suite-level node
// (BeforeSuite, AfterSuite and the like) appears only when it failed, as
// an error: its specs did not run, or the run did not clean up.
func Specs(rep types.Report) []Spec {
	suite := rep.SuiteDescription
	var out []Spec
	for _, r := range rep.SpecReports {
		if r.LeafNodeType != types.NodeTypeIt {
			if r.State.Is(types.SpecStateFailureStates) {
				out = append(out, Spec{Suite: suite, Name: "[" + r.LeafNodeType.String() + "]", Outcome: Error,
					Reason: fmt.Sprintf("%s %s: %s", r.LeafNodeType, r.State, failure(r)), Seconds: r.RunTime.Seconds(), Report: &r})
			}
			continue
		}
		out = append(out, Classify(suite, r))
	}
	if !rep.SuiteSucceeded && len(out) == 0 {
		out = append(out, Spec{Suite: suite, Name: "[suite]", Outcome: Error, Reason: "the suite failed before any spec ran: " + strings.Join(rep.SpecialSuiteFailureReasons, "; ")})
	}
	return out
}

// ReadReport reads a Ginkgo JSON report (--json-report) with Ginkgo's own
// types.
func ReadReport(path string) ([]types.Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read report: %w", err)
	}
	var reps []types.Report
	if err := json.Unmarshal(data, &reps); err != nil {
		return nil, fmt.Errorf("%s is not a Ginkgo JSON report (--json-report): %w", path, err)
	}
	return reps, nil
}

func specName(r types.SpecReport) string {
	if t := r.FullText(); t != "" {
		return t
	}
	return "[" + r.LeafNodeType.String() + "]"
}

func failure(r types.SpecReport) string {
	msg := OneLine(r.Failure.Message)
	if msg == "" {
		msg = "(no message)"
	}
	if loc := r.Failure.Location; loc.FileName != "" {
		msg += fmt.Sprintf(" (%s:%d)", shortPath(loc.FileName), loc.LineNumber)
	}
	return msg
}

// shortPath is a file's folder and name: suites/x/x_test.go -> x/x_test.go.
func shortPath(p string) string {
	return filepath.Join(filepath.Base(filepath.Dir(p)), filepath.Base(p))
}

// OneLine is a message whole on one line: its non-blank lines, trimmed,
// joined by " / ". A reason is shown whole, never cut to its first line
// (Gomega's "Timed out after 30s." says nothing without the lines after
// it), and each verdict still prints as one line. What Gomega prints of
// an error value beyond its text, its type and address line
// ("<*errors.StatusError | 0x4a8…>:") and the dump of its fields after
// the text, is left out: the error's text says what went wrong.
func OneLine(msg string) string {
	var parts []string
	afterValue, depth := 0, 0 // lines since a value's type line; open braces of a dump
	for line := range strings.Lines(msg) {
		t := strings.TrimSpace(line)
		switch {
		case depth > 0:
			depth += braces(t)
			continue
		case gomegaValue.MatchString(t):
			afterValue = 1
			continue
		case afterValue == 2 && strings.HasPrefix(t, "{"):
			afterValue = 0
			depth = braces(t)
			continue
		}
		if afterValue > 0 {
			afterValue++
		}
		if t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, " / ")
}

// braces is how many more braces line opens than it closes, those inside
// its quoted strings (a message, a name with a brace) aside.
func braces(line string) int {
	n, quoted, escaped := 0, false, false
	for _, r := range line {
		switch {
		case escaped:
			escaped = false
		case quoted && r == '\\':
			escaped = true
		case r == '"':
			quoted = !quoted
		case !quoted && r == '{':
			n++
		case !quoted && r == '}':
			n--
		}
	}
	return n
}

// gomegaValue is the line Gomega prints before a value: its type and,
// for a pointer, its address.
var gomegaValue = regexp.MustCompile(`^<[^<>]+ \| 0x[0-9a-f]+>:( .*)?$`)
