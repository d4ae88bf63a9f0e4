package judge

import (
	"strings"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/catalog"
	"github.com/steadystate-dev/steadystate/evidence"
	"github.com/steadystate-dev/steadystate/suites/oracle"
	"github.com/steadystate-dev/steadystate/verdict"
)

// Evidence without what a judge needs leaves the property not evaluated,
// never broken (a finding) or held (a pass).
func TestMissingEvidenceIsNotEvaluated(t *testing.T) {
	empty := &evidence.Evidence{Format: evidence.Format, Spec: "s", End: time.Now()}
	for id, j := range Offline {
		if id == catalog.EvidenceComplete.ID {
			continue // nothing recorded is nothing incomplete
		}
		p, _ := catalog.Property(id)
		if got := oracle.Judge(empty.Start, p, j(empty)); got.Outcome != verdict.NotEvaluated {
			t.Errorf("%s on empty evidence: %s (%s), want not-evaluated", id, got.Outcome, got.Reason)
		}
	}
}

// A convergence whose recorded bound cannot be read is not evaluated, and
// the reason names the fact.
func TestUnreadableConvergenceBoundIsNotEvaluated(t *testing.T) {
	id := catalog.LostLateEvents.ID
	e := &evidence.Evidence{Format: evidence.Format, Spec: "s", End: time.Now(), Facts: map[string]string{
		FactWorkload: "ns/web", FactReplicasPath: "spec.replicas", FactStatusReplicasPath: "status.replicas",
		FactConvergence(id): `{"Since":"2026-11-23T09:00:00Z","Within":"soon","Window":"1s"}`,
	}}
	got := oracle.Judge(e.Start, catalog.LostLateEvents, Offline[id](e))
	if got.Outcome != verdict.NotEvaluated || !strings.Contains(got.Reason, `fact "converge/`+id+`"`) {
		t.Errorf("got %s: %s", got.Outcome, got.Reason)
	}
}
