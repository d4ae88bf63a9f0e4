package reports

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// junit10 is what junit-10.xsd, the schema Jenkins' xUnit plugin
// publishes (jenkinsci/xunit-plugin, src/main/resources/org/jenkinsci/
// plugins/xunit/types/model/xsd/junit-10.xsd), allows of each element:
// its child elements, its attributes and which of them are required.
var junit10 = map[string]struct {
	children, attrs, required []string
	text                      bool
}{
	"testsuites": {children: []string{"testsuite"}, attrs: []string{"name", "time", "tests", "failures", "errors"}},
	"testsuite": {children: []string{"testsuite", "properties", "testcase", "system-out", "system-err"},
		attrs:    []string{"name", "tests", "failures", "errors", "group", "time", "skipped", "timestamp", "hostname", "id", "package", "file", "log", "url"},
		required: []string{"name", "tests", "failures", "errors"}},
	"testcase": {children: []string{"skipped", "error", "failure", "rerunFailure", "rerunError", "flakyFailure", "flakyError", "system-out", "system-err"},
		attrs: []string{"name", "time", "classname", "group"}, required: []string{"name"}},
	"failure":    {attrs: []string{"type", "message"}, text: true},
	"error":      {attrs: []string{"type", "message"}, text: true},
	"skipped":    {attrs: []string{"type", "message"}, text: true},
	"properties": {children: []string{"property"}},
	"property":   {attrs: []string{"name", "value"}, required: []string{"name", "value"}},
	"system-out": {text: true},
	"system-err": {text: true},
}

// surefireTime is the schema's SUREFIRE_TIME, the type of testsuite's and
// testsuites' time.
var surefireTime = regexp.MustCompile(`^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?$`)

// validJUnit10 checks a document against junit10's rules.
func validJUnit10(doc []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(doc))
	var stack []string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := t.Name.Local
			rule, known := junit10[name]
			if !known {
				return fmt.Errorf("element <%s> is not in the schema", name)
			}
			if len(stack) == 0 && name != "testsuites" && name != "testsuite" {
				return fmt.Errorf("root <%s>: want <testsuites> or <testsuite>", name)
			}
			if len(stack) > 0 && !slices.Contains(junit10[stack[len(stack)-1]].children, name) {
				return fmt.Errorf("<%s> may not hold <%s>", stack[len(stack)-1], name)
			}
			var have []string
			for _, a := range t.Attr {
				if !slices.Contains(rule.attrs, a.Name.Local) {
					return fmt.Errorf("<%s> may not have attribute %s", name, a.Name.Local)
				}
				if a.Name.Local == "time" && (name == "testsuite" || name == "testsuites") && !surefireTime.MatchString(a.Value) {
					return fmt.Errorf("<%s time=%q> is not a SUREFIRE_TIME", name, a.Value)
				}
				have = append(have, a.Name.Local)
			}
			for _, r := range rule.required {
				if !slices.Contains(have, r) {
					return fmt.Errorf("<%s> lacks required attribute %s", name, r)
				}
			}
			stack = append(stack, name)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 && strings.TrimSpace(string(t)) != "" && !junit10[stack[len(stack)-1]].text {
				return fmt.Errorf("<%s> may not hold text", stack[len(stack)-1])
			}
		}
	}
	return nil
}

// The checker refuses what Ginkgo's own JUnit writer emits.
func TestValidJUnit10RefusesGinkgosAttributes(t *testing.T) {
	ginkgos, err := os.ReadFile("testdata/ginkgo-junit.xml")
	if err != nil {
		t.Fatal(err)
	}
	if err := validJUnit10(ginkgos); err == nil {
		t.Error("Ginkgo's own JUnit passes the checker")
	}
	for doc, want := range map[string]string{
		`<testsuites tests="1" disabled="0"></testsuites>`:                                                              "attribute disabled",
		`<testsuite name="s" tests="1" failures="0" errors="0"><testcase name="x" status="passed"/></testsuite>`:        "attribute status",
		`<testsuite name="s" tests="1" failures="0"></testsuite>`:                                                       "lacks required attribute errors",
		`<testsuite name="s" tests="1" failures="0" errors="0"><testcase name="x"><properties/></testcase></testsuite>`: "may not hold <properties>",
		`<testsuite name="s" tests="1" failures="0" errors="0" time="1e3"></testsuite>`:                                 "SUREFIRE_TIME",
	} {
		if err := validJUnit10([]byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", doc, err, want)
		}
	}
}

// node is a suite-level node's report.
func node(t types.NodeType, state types.SpecState, failure string) types.SpecReport {
	return types.SpecReport{LeafNodeType: t, State: state, Failure: types.Failure{Message: failure}}
}

// One testcase per spec, suite set-up nodes only when they failed, and
// each verdict class as the element CI tools read for it.
func TestWriteJUnit(t *testing.T) {
	prop := verdict.Property{ID: "leader/only-holder-writes", Stage: verdict.Invariant, Sentence: "one writer"}
	premise := verdict.Property{ID: "leader/holder-killed", Stage: verdict.Assumption, Sentence: "killed"}
	rep := types.Report{SuiteDescription: "leader", StartTime: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC), RunTime: 42 * time.Second,
		SuiteSucceeded: false,
		SpecReports: types.SpecReports{
			node(types.NodeTypeBeforeSuite, types.SpecStatePassed, ""),
			spec("passes", types.SpecStatePassed, "", verdict.Record{Property: prop, Outcome: verdict.Held}),
			spec("breaks", types.SpecStateFailed, "invariant broken",
				verdict.Record{Property: premise, Outcome: verdict.Held},
				verdict.Record{Property: prop, Outcome: verdict.Broken, Reason: "leader-1 wrote while leader-0 held the Lease"}),
			spec("errs", types.SpecStatePanicked, "boom"),
			spec("skips", types.SpecStateSkipped, "subject x is not leader-elected"),
			node(types.NodeTypeAfterSuite, types.SpecStateFailed, "cluster did not stop"),
		}}
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, "e2e", []types.Report{rep}); err != nil {
		t.Fatal(err)
	}
	if err := validJUnit10(buf.Bytes()); err != nil {
		t.Fatalf("not valid against junit-10.xsd: %v\n%s", err, buf.String())
	}
	var doc junitOut
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Suites) != 1 {
		t.Fatalf("%d suites", len(doc.Suites))
	}
	s := doc.Suites[0]
	var names []string
	for _, c := range s.Cases {
		names = append(names, c.Name)
	}
	if want := []string{"passes", "breaks", "errs", "skips", "[AfterSuite]"}; !slices.Equal(names, want) {
		t.Errorf("testcases %v, want %v", names, want)
	}
	if s.Tests != 5 || s.Failures != 1 || s.Errors != 2 || s.Skipped != 1 || doc.Tests != 5 || doc.Failures != 1 || doc.Errors != 2 {
		t.Errorf("counts: suite %+v, doc tests=%d failures=%d errors=%d", s, doc.Tests, doc.Failures, doc.Errors)
	}
	broken := s.Cases[1].Failure
	if broken == nil || broken.Message != "invariant leader/only-holder-writes broken: leader-1 wrote while leader-0 held the Lease" || !strings.Contains(broken.Text, "held assumption leader/holder-killed") {
		t.Errorf("the broken spec's failure: %+v", broken)
	}
	if c := s.Cases[2]; c.Error == nil || !strings.Contains(c.Error.Message, "panicked") || c.Failure != nil {
		t.Errorf("the panicked spec: %+v", c)
	}
	if c := s.Cases[3]; c.Skipped == nil || c.Skipped.Message != "subject x is not leader-elected" {
		t.Errorf("the skipped spec: %+v", c)
	}
	if c := s.Cases[0]; c.Failure != nil || c.Error != nil || c.Skipped != nil {
		t.Errorf("the passing spec: %+v", c)
	}
}

// A real self-test run's report (the leader suite on a bug mode): one
// testcase per spec, valid, and the finding as a failure naming its
// property; Ginkgo's own JUnit of the same run had a testcase per suite
// node too.
func TestWriteJUnitFromARealRun(t *testing.T) {
	reps, err := verdict.ReadReport("testdata/leader-run/leader/ignore-lost-lease/1/report.json")
	if err != nil {
		t.Fatal(err)
	}
	its := 0
	for _, r := range reps[0].SpecReports {
		if r.LeafNodeType == types.NodeTypeIt {
			its++
		}
	}
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, "steadystate", reps); err != nil {
		t.Fatal(err)
	}
	if err := validJUnit10(buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	var doc junitOut
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	cases := doc.Suites[0].Cases
	if len(cases) != its {
		t.Errorf("%d testcases for %d specs", len(cases), its)
	}
	if its == len(reps[0].SpecReports) {
		t.Errorf("the report has no suite nodes to leave out: not the run this test is about")
	}
	failures := 0
	for _, c := range cases {
		if c.Failure != nil {
			failures++
			if !strings.HasPrefix(c.Failure.Message, "invariant leader/only-holder-writes broken: ") {
				t.Errorf("%s: failure message %q", c.Name, c.Failure.Message)
			}
		}
	}
	if failures == 0 || doc.Errors != 0 {
		t.Errorf("%d failures, %d errors: want the finding as a failure, no error", failures, doc.Errors)
	}
}

// A property the binding cannot judge is a skipped testcase of its own
// beside its passing spec; before, the spec passed and JUnit said nothing
// of it.
func TestWriteJUnitNamesNotBoundProperties(t *testing.T) {
	held := verdict.Record{Property: catalog.FgDeletingStatus, Outcome: verdict.Held}
	nb := verdict.Record{Property: catalog.FgBlockerNamed, Outcome: verdict.NotBound, Reason: "the subject binds no capabilities.foregroundComposite.blockerMessage"}
	rep := types.Report{SuiteDescription: "foreground", SuiteSucceeded: true,
		SpecReports: types.SpecReports{spec("blocked", types.SpecStatePassed, "", held, nb)}}
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, "e2e", []types.Report{rep}); err != nil {
		t.Fatal(err)
	}
	if err := validJUnit10(buf.Bytes()); err != nil {
		t.Fatalf("not valid against junit-10.xsd: %v\n%s", err, buf.String())
	}
	var doc junitOut
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.Suites[0]
	if s.Tests != 2 || s.Skipped != 1 || s.Failures != 0 || s.Errors != 0 || len(s.Cases) != 2 {
		t.Fatalf("counts: %+v", s)
	}
	c := s.Cases[1]
	if c.Name != "blocked [property foreground/blocker-named]" || c.Skipped == nil || c.Skipped.Message != "not bound: "+nb.Reason {
		t.Errorf("the not-bound line: %+v", c)
	}
	if s.Cases[0].Skipped != nil || s.Cases[0].Failure != nil || s.Cases[0].Error != nil {
		t.Errorf("the spec: %+v", s.Cases[0])
	}
}
