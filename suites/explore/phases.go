package explore

import (
	. "github.com/onsi/ginkgo/v2"

	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/runs/exploration/phases"
)

// enter marks the current spec as in phase (one of package phases') from
// now (once: a phase it is in already is not marked again).
func enter(phase int) {
	if phases.Last(CurrentSpecReport().ReportEntries) == phase {
		return
	}
	AddReportEntry(phases.Entry, ReportEntryVisibilityNever, phases.Names[phase])
}

// timedPhases wraps each check so that its run enters its phase: a
// convergence property's waits for the subject to converge, any other's
// judges.
func timedPhases(checks []oracle.Check) []oracle.Check {
	out := make([]oracle.Check, len(checks))
	for i, c := range checks {
		phase, run := phases.Judging, c.Run
		if c.Property.Stage == verdict.Convergence {
			phase = phases.Convergence
		}
		c.Run = func() error {
			enter(phase)
			return run()
		}
		out[i] = c
	}
	return out
}
