package tally

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

const (
	// ReferenceSpec names the fault-free reference runs a reconciledObjects
	// exploration makes before its schedules: they are no schedules.
	ReferenceSpec = "fault-free reference run"
	// ScheduleFile is a finding's schedule, next to its history.txt.
	ScheduleFile = "schedule.yaml"
)

// IsReference reports whether the spec named name is a reconciledObjects
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

// CoveredEntry is the report entry of the fault (or workload step) ×
// resource × phase combinations a schedule acted ("partition-refuse/
// services/settled"); PossibleEntry of how many its process's subject
// offers. A run's coverage is the union of its schedules' over its
// processes.
const (
	CoveredEntry  = "covered"
	PossibleEntry = "possible"
)

// Coverage is how many combinations the schedules of specs acted, all
// processes together, of how many the subject offers (the largest a
// process counted): 0 of 0 when the reports say nothing of it.
func Coverage(specs []Spec) (covered, possible int) {
	acted := map[string]bool{}
	for _, s := range specs {
		if s.Reference || s.Report == nil {
			continue
		}
		for _, e := range s.Report.ReportEntries {
			switch e.Name {
			case CoveredEntry:
				var keys []string
				if v, ok := e.Value.GetRawValue().([]string); ok {
					keys = v
				} else if err := json.Unmarshal([]byte(e.Value.AsJSON), &keys); err != nil {
					continue
				}
				for _, k := range keys {
					acted[k] = true
				}
			case PossibleEntry:
				var n int
				if v, ok := e.Value.GetRawValue().(int); ok {
					n = v
				} else if err := json.Unmarshal([]byte(e.Value.AsJSON), &n); err != nil {
					continue
				}
				possible = max(possible, n)
			}
		}
	}
	return len(acted), possible
}
