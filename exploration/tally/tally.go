package tally

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/evidence"
	"github.com/steadystate-dev/steadystate/verdict"
)

const (
	// ReferenceSpec names the fault-free reference runs a steadyState
	// exploration makes before its schedules: they are no schedules.
	ReferenceSpec = "fault-free reference run"
	// ScheduleFile is a finding's schedule, next to its history.txt.
	ScheduleFile = "schedule.yaml"
)

// IsReference reports whether the spec named name is a steadyState
// exploration's fault-free reference run, not a schedule.
func IsReference(name string) bool { return strings.Contains(name, ReferenceSpec) }

// Spec is one spec of an exploration run that ran (was not skipped).
type Spec struct {
	verdict.Spec
	// Reference says it is a fault-free reference run, not a schedule.
	Reference bool
	// Evidence is its history.txt, in its artifacts folder; Schedule is
	// where a schedule that failed is kept, beside it ("" for a
	// reference run, which has none).
	Evidence, Schedule string
}

// Specs are the specs of an exploration run that ran, in their order,
// with their artifacts below dir, the run's folder.
func Specs(specs []verdict.Spec, dir string) []Spec {
	var out []Spec
	for _, s := range specs {
		if s.Outcome == verdict.SkippedSpec {
			continue
		}
		folder := filepath.Join(dir, evidence.SpecFolder(s.Name))
		c := Spec{Spec: s, Reference: IsReference(s.Name), Evidence: filepath.Join(folder, evidence.HistoryFileName)}
		if !c.Reference {
			c.Schedule = filepath.Join(folder, ScheduleFile)
		}
		out = append(out, c)
	}
	return out
}

// NotDoneEntry is the report entry of a schedule's steps that were not
// done (their trigger never came, their replica was not there), each as
// its spec's facts tell it.
const NotDoneEntry = "steps not done"

// NotDone reads a schedule's steps that were not done from its report, as
// the suite made it or as read back from its JSON.
func NotDone(r types.SpecReport) []string {
	for _, e := range r.ReportEntries {
		if e.Name != NotDoneEntry {
			continue
		}
		if steps, ok := e.Value.GetRawValue().([]string); ok {
			return steps
		}
		var steps []string
		if err := json.Unmarshal([]byte(e.Value.AsJSON), &steps); err == nil {
			return steps
		}
	}
	return nil
}
