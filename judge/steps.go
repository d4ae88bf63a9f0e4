package judge

import (
	"errors"
	"fmt"

	"github.com/steadystate-dev/steadystate/evidence"
	"github.com/steadystate-dev/steadystate/oracle"
)

// FactFaultSteps is how many of an exploration schedule's fault steps ran
// (were due and injected; a step whose trigger never came did not run).
// Each one that ran leaves one injection on the spec's fault timeline,
// failed or not.
var FactFaultSteps = Fact[int]{Name: "faultSteps"}

// StepsActed is the exploration premise that every fault step that ran
// acted: the timeline records one injection for each, and none of them
// failed, in its injection or in its recovery. A schedule whose fault was
// half applied, or never recovered, says nothing about the subject.
func StepsActed(e *evidence.Evidence) error {
	r := read(e)
	ran := get(r, FactFaultSteps)
	if err := r.missing(); err != nil {
		return err
	}
	if ran < 0 {
		return fmt.Errorf("%w: fact %s is %d, not a count of steps", oracle.ErrNotEvaluated, FactFaultSteps, ran)
	}
	var errs []error
	for _, inj := range e.Faults {
		if inj.Error != "" {
			errs = append(errs, fmt.Errorf("%s at %s failed: %s", inj.Fault, inj.Start.Format("15:04:05.000"), inj.Error))
		}
	}
	if len(e.Faults) < ran {
		errs = append(errs, fmt.Errorf("%d fault step(s) ran and the timeline records %d injection(s): a step's fault was not recorded", ran, len(e.Faults)))
	}
	return errors.Join(errs...)
}
