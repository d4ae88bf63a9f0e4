package oracle

import (
	"errors"
	"fmt"
)

// Stage orders the checks of a scenario.
type Stage int

// The stages, in the order Validate runs them.
const (
	Assumption Stage = iota
	Liveness
	Safety
)

func (s Stage) String() string {
	return [...]string{"assumption", "convergence", "invariant"}[s]
}

// ErrAssumption marks a scenario that did not set up what it tests (the
// fault never happened, the controller was not healthy before it): the
// subject is not to blame.
var ErrAssumption = errors.New("the scenario's assumptions must hold before the controller is judged")

// Check is one named check of a scenario.
type Check struct {
	Stage Stage
	Name  string
	Run   func() error
}

// Validate runs assumptions, then convergence, then invariants, and
// returns every failure of the first stage that fails, each naming its
// check; assumption failures wrap ErrAssumption.
func Validate(checks ...Check) error {
	for _, stage := range []Stage{Assumption, Liveness, Safety} {
		var errs []error
		for _, c := range checks {
			if c.Stage != stage {
				continue
			}
			if err := c.Run(); err != nil {
				if stage == Assumption && !errors.Is(err, ErrAssumption) {
					err = fmt.Errorf("%w: %w", ErrAssumption, err)
				}
				errs = append(errs, fmt.Errorf("%s %q: %w", stage, c.Name, err))
			}
		}
		if len(errs) > 0 {
			return errors.Join(errs...)
		}
	}
	return nil
}
