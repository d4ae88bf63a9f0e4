package judge

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// TestALostPodOfTheSameNameElsewhereIsAnotherPod re-judges the evidence
// of a zoo run of Kubernetes' StatefulSet controller (fixtures/zoo) through
// the lost-create spec. A StatefulSet's pods have stable names: the
// controller, which watches every namespace, had been sent web-2 of the
// storm spec's namespace when its watch opened, long before the lost pod,
// lostevents-k9xcr/web-2, was created; that one's events were all
// withheld, and the web-2 the controller made after the relist is its
// replacement, another pod (another uid). The premise was judged broken
// on the other namespace's pod (an error of the spec, a harness defect);
// it holds, and the controller recovered the create.
func TestALostPodOfTheSameNameElsewhereIsAnotherPod(t *testing.T) {
	read := func() *evidence.Evidence {
		return readEvidence(t, filepath.Join("statefulset", "lostevents-statefulset-relist.json"))
	}
	e := read()
	for _, c := range []struct {
		p    verdict.Property
		want verdict.Outcome
	}{
		{catalog.LostHealthyBefore, verdict.Held},
		{catalog.LostEventWithheld, verdict.Held},
		{catalog.LostCreateRecovered, verdict.Held},
		{catalog.LostLaterScale, verdict.Held},
		{catalog.LostNoOvershoot, verdict.Held},
	} {
		if got := judged(t, c.p.ID, e); got.Outcome != c.want {
			t.Errorf("%s: %s (%s), want %s", c.p.ID, got.Outcome, got.Reason, c.want)
		}
	}

	// The same delivery in the workload's namespace: the subject saw the
	// lost pod, the premise is broken.
	e = read()
	ns, _, _ := strings.Cut(e.Facts[FactWorkload.Name], "/")
	replica := e.Facts[FactReplica.Name]
	p := e.Proxies[replica]
	changed := false
	for i, ev := range p.Events {
		if ev.Name == e.Facts[FactLostPod.Name] && ev.Namespace != ns && ev.Type == "ADDED" && ev.Delivered {
			p.Events[i].Namespace = ns
			changed = true
			break
		}
	}
	e.Proxies[replica] = p
	if !changed {
		t.Fatal("no delivered ADDED of a pod of the lost pod's name elsewhere to derive from")
	}
	if got := judged(t, catalog.LostEventWithheld.ID, e); got.Outcome != verdict.Broken || !strings.Contains(got.Reason, "pod/"+ns+"/web-2") {
		t.Errorf("the pod delivered in the workload's namespace: %s %q, want broken naming pod/%s/web-2", got.Outcome, got.Reason, ns)
	}
}
