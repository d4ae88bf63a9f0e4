package judge

import (
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
