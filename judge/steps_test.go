package judge

import (
	"errors"
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/evidence"
	"github.com/steadystate-dev/steadystate/oracle"
)

// The exploration premise needs the count of fault steps that ran: without
// it, it is not evaluated; with more steps than the timeline records, a
// fault went unrecorded and it is broken.
func TestStepsActedNeedsItsCount(t *testing.T) {
	e := &evidence.Evidence{Facts: map[string]string{}, Faults: []chaos.Injection{{Fault: "watch-cut"}}}
	if err := StepsActed(e); !errors.Is(err, oracle.ErrNotEvaluated) {
		t.Errorf("no count: %v", err)
	}
	e.Facts[FactFaultSteps.Name] = "one"
	if err := StepsActed(e); !errors.Is(err, oracle.ErrNotEvaluated) {
		t.Errorf("a count that is not one: %v", err)
	}
	e.Facts[FactFaultSteps.Name] = "2"
	if err := StepsActed(e); err == nil || errors.Is(err, oracle.ErrNotEvaluated) || !strings.Contains(err.Error(), "2 fault step(s) ran and the timeline records 1") {
		t.Errorf("a step missing from the timeline: %v", err)
	}
	e.Facts[FactFaultSteps.Name] = "1"
	if err := StepsActed(e); err != nil {
		t.Errorf("the one step on the timeline: %v", err)
	}
}
