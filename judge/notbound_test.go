package judge

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// Quiescent is not bound on an exploration schedule whose state did not
// settle again once its faults were recovered (the zoo Deployment's
// stuck rollout: recovers broken, no quiet window watched), and validate
// re-makes that from the evidence; on one that settled (the correct
// composite's) it is owed, so a run that recorded it not bound there
// differs, not evaluated.
func TestQuiescentUnboundFromEvidence(t *testing.T) {
	read := func(name string) *evidence.Evidence {
		e, err := evidence.Read(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	notBound := verdict.Record{Property: catalog.SteadyQuiescent, Outcome: verdict.NotBound, Reason: "the state did not settle"}

	stuck := read("explore-deployment-steady-stuck-rollout.json")
	why := QuiescentUnbound(stuck)
	if !strings.Contains(why, "did not settle again, after the faults were recovered") || strings.Contains(why, "\n") {
		t.Errorf("the stuck rollout: quiescent unbound because %q, want the recovery named, on one line", why)
	}
	if got, remade := RejudgeNotBound(notBound, stuck); !remade || got.Outcome != verdict.NotBound || got.Reason != why {
		t.Errorf("the stuck rollout's not bound re-made as %s (%s), remade %v", got.Outcome, got.Reason, remade)
	}

	settled := read("explore-composite-steady-correct.json")
	if why := QuiescentUnbound(settled); why != "" {
		t.Errorf("a schedule that watched its quiet window: quiescent unbound because %q", why)
	}
	delete(settled.Facts, FactSteadyQuiet.Name)
	if why := QuiescentUnbound(settled); why != "" {
		t.Errorf("a schedule that settled again: quiescent unbound because %q", why)
	}
	if got, _ := RejudgeNotBound(notBound, settled); got.Outcome != verdict.NotEvaluated {
		t.Errorf("a not bound on a settled schedule re-made as %s (%s), want not evaluated", got.Outcome, got.Reason)
	}
}
