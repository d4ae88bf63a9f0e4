package proxy

import "testing"

// Two Respond rules matching the same request: the older answers while
// it is in place, and the newer from the moment it is removed. The
// reconcile suite's refused writes hand one code over to the next this
// way, arming the next before lifting the one before, so that no write
// passes between them.
func TestTheOldestMatchingRuleAnswers(t *testing.T) {
	s := newRuleSet()
	m := Match{Verbs: []string{"create"}, Resource: "configmaps"}
	older, err := s.add(Rule{Action: Respond, Code: 500, Match: m})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.add(Rule{Action: Respond, Code: 409, Match: m}); err != nil {
		t.Fatal(err)
	}
	create := RequestInfo{Verb: "create", Resource: "configmaps", Namespace: "ns"}
	if r, _, ok := s.take(Respond, create, nil); !ok || r.Code != 500 {
		t.Fatalf("with both rules in place, answered %d (%v), want 500, the older", r.Code, ok)
	}
	s.remove(older)
	if r, _, ok := s.take(Respond, create, nil); !ok || r.Code != 409 {
		t.Fatalf("once the older was removed, answered %d (%v), want 409", r.Code, ok)
	}
}
