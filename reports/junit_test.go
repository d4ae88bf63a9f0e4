package reports

import (
	"bytes"
	"strings"
	"testing"
)

func TestReadJUnitCountsSpecsNotSuiteNodes(t *testing.T) {
	s, err := ReadJUnit("testdata/ginkgo-junit.xml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Passed != 1 || s.Failed != 1 || s.Skipped != 1 {
		t.Fatalf("summary = %d passed, %d failed, %d skipped; want 1, 1, 1", s.Passed, s.Failed, s.Skipped)
	}
	var out bytes.Buffer
	s.Print(&out, "e2e")
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if last := lines[len(lines)-1]; last != "e2e: 1 passed, 1 failed, 1 skipped" {
		t.Errorf("closing line = %q", last)
	}
	if !strings.Contains(out.String(), "Timed out after 30.000s. / the owner is removed\n") {
		t.Errorf("a failure should show its message whole, on one line:\n%s", out.String())
	}
}

func TestSuiteNodeFailuresCount(t *testing.T) {
	s, err := ParseJUnit(strings.NewReader(`<testsuites><testsuite name="x">
<testcase name="[SynchronizedBeforeSuite]" status="failed"><failure message="cluster did not start"/></testcase>
<testcase name="[It] a" status="skipped"/></testsuite></testsuites>`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Failed != 1 || s.Passed != 0 {
		t.Errorf("a failed BeforeSuite must count as a failure: %+v", s)
	}
}

func TestParseJUnitRejectsGarbage(t *testing.T) {
	if _, err := ParseJUnit(strings.NewReader("not xml")); err == nil {
		t.Fatal("garbage parsed")
	}
}
