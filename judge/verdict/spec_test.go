package verdict

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

var (
	failover  = Property{ID: "leader/failover-in-time", Stage: Convergence, Sentence: "it fails over"}
	oneWriter = Property{ID: "leader/only-holder-writes", Stage: Invariant, Sentence: "one writer"}
	blocker   = Property{ID: "foreground/blocker-named", Stage: Convergence, Sentence: "the blocker is named"}
)

// report is a spec's report as Ginkgo's JSON report gives it back: its
// labels, and its records as entries read from JSON (no raw values).
func report(state types.SpecState, labels []string, records ...Record) types.SpecReport {
	r := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: "does it", State: state,
		LeafNodeLabels: labels, RunTime: time.Second}
	for _, rec := range records {
		r.ReportEntries = append(r.ReportEntries, entry(rec))
	}
	return r
}

// entry is a report entry of v as read back from a JSON report.
func entry(v any) types.ReportEntry {
	e := types.ReportEntry{Name: EntryName, Value: types.WrapEntryValue(v), Location: types.CodeLocation{FileName: "/x/suites/leader/specs.go", LineNumber: 7}}
	data, err := json.Marshal(e)
	if err != nil {
		panic(err)
	}
	var back types.ReportEntry
	if err := json.Unmarshal(data, &back); err != nil {
		panic(err)
	}
	return back
}

func TestDeclarationsAreGinkgoLabelsThatReadBack(t *testing.T) {
	labels := Declarations(failover, oneWriter, failover)
	if labels[0] != "judges:leader:failover-in-time" {
		t.Errorf("Declaration = %q", labels[0])
	}
	for _, l := range labels {
		if _, err := types.ValidateAndCleanupLabel(l, types.CodeLocation{}); err != nil {
			t.Errorf("%q is not a valid Ginkgo label: %v", l, err)
		}
	}
	got := Declared(append([]string{"capability:leader-elected", "judges:"}, labels...))
	if strings.Join(got, ",") != "leader/failover-in-time,leader/only-holder-writes" {
		t.Errorf("Declared = %v", got)
	}
}

func TestAPassedSpecMissingADeclaredRecordIsAnError(t *testing.T) {
	labels := Declarations(failover, oneWriter)
	// Before declarations, a passed spec that recorded only some of its
	// properties (here: its body returned before judging failover) passed.
	s := Classify("Leader", report(types.SpecStatePassed, labels, Record{Property: oneWriter, Outcome: Held}))
	if s.Outcome != Error || !strings.Contains(s.Reason, "leader/failover-in-time") || strings.Contains(s.Reason, "only-holder-writes") {
		t.Errorf("missing one declared record: %s %q", s.Outcome, s.Reason)
	}
	s = Classify("Leader", report(types.SpecStatePassed, labels))
	if s.Outcome != Error || !strings.Contains(s.Reason, "leader/failover-in-time, leader/only-holder-writes") {
		t.Errorf("no record at all: %s %q", s.Outcome, s.Reason)
	}
	s = Classify("Leader", report(types.SpecStatePassed, nil))
	if s.Outcome != Error || !strings.Contains(s.Reason, "judged nothing") {
		t.Errorf("no declaration and no record: %s %q", s.Outcome, s.Reason)
	}
	s = Classify("Leader", report(types.SpecStatePassed, labels, Record{Property: oneWriter, Outcome: Held}, Record{Property: failover, Outcome: Held}))
	if s.Outcome != Passed || len(s.Missing()) != 0 || !s.Judged(failover.ID) {
		t.Errorf("every declared record held: %s %q", s.Outcome, s.Reason)
	}
	// A skipped spec keeps its declarations: the reports name what it
	// did not judge.
	s = Classify("Leader", report(types.SpecStateSkipped, labels))
	if s.Outcome != SkippedSpec || strings.Join(s.Declared, ",") != "leader/failover-in-time,leader/only-holder-writes" {
		t.Errorf("skipped: %s %v", s.Outcome, s.Declared)
	}
}

func TestNotBoundIsARecordOfItsOwnThatNeitherPassesNorFails(t *testing.T) {
	labels := Declarations(failover, blocker)
	nb := Record{Property: blocker, Outcome: NotBound, Reason: "the subject binds no blockerMessage"}
	s := Classify("Foreground", report(types.SpecStatePassed, labels, Record{Property: failover, Outcome: Held}, nb))
	if s.Outcome != Passed {
		t.Fatalf("a passed spec with a not-bound property: %s %q", s.Outcome, s.Reason)
	}
	if nbs := s.NotBound(); len(nbs) != 1 || nbs[0].ID != blocker.ID || s.Judged(blocker.ID) {
		t.Errorf("NotBound = %v, judged %v", nbs, s.Judged(blocker.ID))
	}
	if m := Message(s.Records); m != "" {
		t.Errorf("a not-bound record fails the spec: %q", m)
	}
}

func TestAnUnreadableRecordMakesTheSpecAnError(t *testing.T) {
	labels := Declarations(oneWriter)
	for _, state := range []types.SpecState{types.SpecStatePassed, types.SpecStateFailed} {
		r := report(state, labels, Record{Property: oneWriter, Outcome: Held})
		r.ReportEntries = append(r.ReportEntries, entry("held leader/failover-in-time"), entry(map[string]string{"outcome": "held"}))
		s := Classify("Leader", r)
		// Before, both entries were dropped and the spec passed.
		if s.Outcome != Error || !strings.Contains(s.Reason, "report entry 2 (steadystate.property at leader/specs.go:7) does not read as a property record") {
			t.Errorf("%s: %s %q", state, s.Outcome, s.Reason)
		}
		if n := len(s.Records); n != 3 || s.Records[2].ID != RecordReadable.ID || !strings.Contains(s.Records[2].Reason, "report entry 3") {
			t.Errorf("%s: records %v", state, s.Records)
		}
	}
}

// A reason is shown whole: the lines after Gomega's first say what timed
// out.
func TestAFailureReasonIsWhole(t *testing.T) {
	r := types.SpecReport{LeafNodeType: types.NodeTypeIt, LeafNodeText: "storm", State: types.SpecStateFailed,
		Failure: types.Failure{Message: "Timed out after 30.001s.\nExpected\n    <int>: 2\nto equal\n    <int>: 3\n"}}
	s := Classify("Lost events", r)
	if want := "failed outside any property: Timed out after 30.001s. / Expected / <int>: 2 / to equal / <int>: 3"; s.Outcome != Error || s.Reason != want {
		t.Errorf("got %s %q, want error %q", s.Outcome, s.Reason, want)
	}
}

// TestAFailureOutsideAPropertyKeepsTheSpecsDescription classifies the
// storm spec of a run of Kubernetes' Job controller whose replacement
// wait timed out: the reason must carry the description Gomega printed
// after "Timed out", which names the setting to raise, not only the
// timeout.
func TestAFailureOutsideAPropertyKeepsTheSpecsDescription(t *testing.T) {
	r := report(types.SpecStateFailed, nil)
	r.Failure = types.Failure{
		Message:  "Timed out after 180.001s.\nthe subject should replace the deleted pods before the next round, within capabilities.scalableWorkload.replaceWithin (3m0s): raise it for a controller that backs off by design (overshoot is the invariant's to judge)\nExpected\n    <int>: 2\nto be >=\n    <int>: 4",
		Location: types.CodeLocation{FileName: "/w/suites/lostevents/storms.go", LineNumber: 54},
	}
	s := Classify("lostevents", r)
	want := "failed outside any property: Timed out after 180.001s. / the subject should replace the deleted pods before the next round, within capabilities.scalableWorkload.replaceWithin (3m0s): raise it for a controller that backs off by design (overshoot is the invariant's to judge) / Expected / <int>: 2 / to be >= / <int>: 4 (lostevents/storms.go:54)"
	if s.Outcome != Error || s.Reason != want {
		t.Errorf("got %s %q\nwant error %q", s.Outcome, s.Reason, want)
	}
}

// A spec names its subject in an entry of its own, read back from JSON;
// the property records around it are read as before.
func TestClassifyReadsTheSubject(t *testing.T) {
	r := report(types.SpecStatePassed, Declarations(failover), Record{Property: failover, Outcome: Held})
	named := entry("composite (correct)")
	named.Name = SubjectEntry
	r.ReportEntries = append(r.ReportEntries, named)
	s := Classify("leader", r)
	if s.Subject != "composite (correct)" || s.Outcome != Passed {
		t.Errorf("Classify = subject %q, %s (%s); want composite (correct), passed", s.Subject, s.Outcome, s.Reason)
	}
	if s := Classify("leader", report(types.SpecStatePassed, Declarations(failover), Record{Property: failover, Outcome: Held})); s.Subject != "" {
		t.Errorf("a spec with no subject entry names %q", s.Subject)
	}
}
