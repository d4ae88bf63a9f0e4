package verdict

import (
	"strings"
	"testing"
)

func TestMessageIsOneLinePerBrokenProperty(t *testing.T) {
	conv := Property{ID: "s/converges", Stage: Convergence, Sentence: "it converges"}
	inv := Property{ID: "s/safe", Stage: Invariant, Sentence: "it is safe"}
	pre := Property{ID: "s/fault", Stage: Assumption, Sentence: "the fault happened"}
	held := func(p Property) Record { return Record{Property: p, Outcome: Held} }
	broke := func(p Property, why string) Record { return Record{Property: p, Outcome: Broken, Reason: why} }

	if m := Message([]Record{held(pre), held(conv), held(inv)}); m != "" {
		t.Errorf("all held: %q", m)
	}
	recs := []Record{held(pre), broke(conv, "still 2 of 3"), broke(inv, "4 pods for 3")}
	if m := Message(recs); m != "convergence s/converges broken: still 2 of 3\ninvariant s/safe broken: 4 pods for 3" {
		t.Errorf("broken: %q", m)
	}
	if ids := BrokenIDs(append(recs, broke(conv, "again"))); strings.Join(ids, ",") != "s/converges,s/safe" {
		t.Errorf("BrokenIDs = %v", ids)
	}
	recs = []Record{broke(pre, "no 410"), {Property: conv, Outcome: NotEvaluated, Reason: "assumption s/fault did not hold"}}
	if m := Message(recs); m != "error: assumption s/fault did not hold: no 410" {
		t.Errorf("assumption: %q", m)
	}
	if m := Message([]Record{held(pre), {Property: conv, Outcome: NotEvaluated, Reason: "the move back failed"}}); !strings.HasPrefix(m, "error: convergence s/converges not evaluated") {
		t.Errorf("not evaluated: %q", m)
	}
	r := Record{Property: conv, Outcome: Held, Figures: map[string]string{"took": "2s", "bound": "5s"}}
	if s := r.String(); s != "held convergence s/converges (bound=5s, took=2s)" {
		t.Errorf("String = %q", s)
	}
	if conv.Suite() != "s" {
		t.Errorf("Suite = %q", conv.Suite())
	}
}
