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

// Every property of the catalog has an offline judge: a verdict anyone
// can check again from the evidence.
func TestEveryPropertyIsJudgedOffline(t *testing.T) {
	for _, p := range catalog.Properties {
		if _, ok := Offline[p.ID]; !ok {
			t.Errorf("property %s has no offline judge", p.ID)
		}
	}
	for id := range Offline {
		if _, err := catalog.Property(id); err != nil {
			t.Errorf("offline judge for %s: %v", id, err)
		}
	}
}

// A convergence whose recorded bound cannot be read, or names a state this
// judge does not know, is not evaluated, and the reason names the fact.
func TestUnreadableConvergenceBoundIsNotEvaluated(t *testing.T) {
	id := catalog.LostLateEvents.ID
	for name, value := range map[string]string{
		"bad duration": `{"Since":"2026-11-23T09:00:00Z","Within":"soon","Window":"1s","History":"workload","Want":{"kind":"gone","keys":["ns/web"]}}`,
		"no history":   `{"Since":"2026-11-23T09:00:00Z","Within":"1s","Window":"1s","Want":{"kind":"gone","keys":["ns/web"]}}`,
		"unknown want": `{"Since":"2026-11-23T09:00:00Z","Within":"1s","Window":"1s","History":"workload","Want":{"kind":"happy","keys":["ns/web"]}}`,
		"no key":       `{"Since":"2026-11-23T09:00:00Z","Within":"1s","Window":"1s","History":"workload","Want":{"kind":"gone"}}`,
	} {
		e := &evidence.Evidence{Format: evidence.Format, Spec: "s", End: time.Now(),
			Facts:     map[string]string{FactConvergence(id): value},
			Histories: map[string][]oracle.EventRecord{HistoryWorkload: {}}}
		got := oracle.Judge(e.Start, catalog.LostLateEvents, Offline[id](e))
		if got.Outcome != verdict.NotEvaluated || !strings.Contains(got.Reason, `fact "converge/`+id+`"`) {
			t.Errorf("%s: got %s: %s", name, got.Outcome, got.Reason)
		}
	}
}
