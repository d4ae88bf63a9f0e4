package judge

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// TestAPodHandedBackDeletingWasStillWithheld re-judges the evidence of a
// run of Kubernetes' Job controller (fixtures/subjects/job.yaml) through
// the lost-create spec. Its pods carry a finalizer, so the harness's
// grace-0 delete left the lost pod deleting and the forced relist handed
// it back as ADDED, already deleting; the controller does not count such
// a pod as the create it expected, and made no replacement until the
// next scale change, 5m16s later. The premise held (the creation was
// withheld); the create was not recovered within the bound: a finding on
// recovers-lost-create, not an error of the spec.
func TestAPodHandedBackDeletingWasStillWithheld(t *testing.T) {
	read := func() *evidence.Evidence { return readEvidence(t, filepath.Join("job", "lostevents-job-relist.json")) }
	e := read()
	for _, c := range []struct {
		p    verdict.Property
		want verdict.Outcome
	}{
		{catalog.LostHealthyBefore, verdict.Held},
		{catalog.LostEventWithheld, verdict.Held},
		{catalog.LostCreateRecovered, verdict.Broken},
		{catalog.LostLaterScale, verdict.Held},
		{catalog.LostNoOvershoot, verdict.Held},
	} {
		if got := judged(t, c.p.ID, e); got.Outcome != c.want {
			t.Errorf("%s: %s (%s), want %s", c.p.ID, got.Outcome, got.Reason, c.want)
		}
	}

	// The same delivery, of the pod alive (its creation's revision): the
	// subject saw the create, the premise is broken.
	e = read()
	replica := e.Facts[FactReplica.Name]
	p := e.Proxies[replica]
	changed := false
	for i, ev := range p.Events {
		if ev.Name == e.Facts[FactLostPod.Name] && ev.Type == "ADDED" && ev.Delivered {
			p.Events[i].ResourceVersion = "418"
			changed = true
		}
	}
	e.Proxies[replica] = p
	if !changed {
		t.Fatal("no delivered ADDED of the lost pod to derive from")
	}
	if got := judged(t, catalog.LostEventWithheld.ID, e); got.Outcome != verdict.Broken || !strings.Contains(got.Reason, "the lost create was not hidden") {
		t.Errorf("the pod delivered alive: %s %q, want broken: the lost create was not hidden", got.Outcome, got.Reason)
	}

	// Without the pod history, every delivery of the pod breaks it.
	e = read()
	delete(e.Histories, HistoryPods)
	if got := judged(t, catalog.LostEventWithheld.ID, e); got.Outcome != verdict.Broken {
		t.Errorf("without the pod history: %s %q, want broken", got.Outcome, got.Reason)
	}
}
