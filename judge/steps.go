package judge

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// FactFaultSteps is how many of an exploration schedule's fault steps ran
// (were due and injected; a step whose trigger never came did not run).
// Each one that ran leaves one injection on the spec's fault timeline,
// failed or not.
var FactFaultSteps = Fact[int]{Name: "faultSteps"}

// StepsActed is the exploration premise that every fault step that ran
// acted: the timeline records one injection for each, and none of them
// failed, in its injection or in its recovery; and every write a fault
// refused as a real conflict (a refuse-once 409) had its object written
// first (proxy.Request.ConflictMissed). A schedule whose fault was half
// applied, or never recovered, says nothing about the subject; nor does
// a 409 with no change behind it, which a controller that waits for the
// change a conflict announces may rightly wait on for ever.
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
	for _, replica := range slices.Sorted(maps.Keys(e.Proxies)) {
		for _, req := range e.Proxies[replica].Requests {
			if req.ConflictMissed() {
				errs = append(errs, fmt.Errorf("%s's %s of %s %s at %s was answered 409 by %s with no write of its object behind it: %s",
					replica, req.Verb, req.GroupResource(), req.Name, req.Start.Format("15:04:05.000"), req.Fault, req.Conflict.NotWritten))
			}
		}
	}
	if len(e.Faults) < ran {
		errs = append(errs, fmt.Errorf("%d fault step(s) ran and the timeline records %d injection(s): a step's fault was not recorded", ran, len(e.Faults)))
	}
	return errors.Join(errs...)
}
