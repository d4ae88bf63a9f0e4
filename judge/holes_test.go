package judge

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// The tests of this file each show one way a controller can be wrong, or
// right, that the steady-state judges once misjudged: a run built by
// hand (run), two fault-free reference runs of the correct controller
// and a faulted run of a faulty one (or a correct one the judge once
// called faulty), judged as the suite judges them.

// run is a steady-state run built by hand: Claim ns/app applied at 0.1s,
// its end state taken at 5s, the evidence ending at 9s.
type run struct {
	ns    string
	t0    time.Time
	hist  map[string][]oracle.EventRecord
	reqs  []proxy.Request
	facts map[string]string
	fault []chaos.Injection
	end   float64
}

const claims = "steady/claims.example.org"

func newRun(ns string) *run {
	return &run{ns: ns, t0: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), hist: map[string][]oracle.EventRecord{claims: nil}, facts: map[string]string{}, end: 9}
}

func (r *run) at(s float64) time.Time { return r.t0.Add(time.Duration(s * float64(time.Second))) }

// put records obj (a map made by object) in history h at s: ADDED the
// first time its key is seen, MODIFIED after, DELETED with typ.
func (r *run) put(s float64, h string, obj map[string]any, typ ...string) {
	u := &unstructured.Unstructured{Object: obj}
	key := u.GetNamespace() + "/" + u.GetName()
	t := "ADDED"
	for _, e := range r.hist[h] {
		if e.Key == key {
			t = "MODIFIED"
		}
	}
	if len(typ) > 0 {
		t = typ[0]
	}
	r.hist[h] = append(r.hist[h], oracle.EventRecord{At: r.at(s), Type: t, Key: key, Object: obj})
}

// write records a write of the controller answered code at s, with the
// object its answer named (uid "": none).
func (r *run) write(s float64, verb, group, resource, ns, name string, code int, uid string) {
	req := proxy.Request{ID: uint64(len(r.reqs) + 1), Replica: "c-0", RequestInfo: proxy.RequestInfo{Verb: verb, Group: group, Resource: resource, Namespace: ns}, Code: code, Start: r.at(s), End: r.at(s + 0.005)}
	if verb != "create" {
		req.Name = name
	}
	if uid != "" && code < 300 {
		req.Object = &proxy.ObjectRef{Name: name, UID: uid}
	}
	r.reqs = append(r.reqs, req)
}

// object is a manifest: kind (its group from apiVersion), namespace,
// name, uid, and fields set by dotted path.
func object(apiVersion, kind, ns, name, uid string, fields map[string]any) map[string]any {
	md := map[string]any{"name": name, "uid": uid, "resourceVersion": "1"}
	if ns != "" {
		md["namespace"] = ns
	}
	o := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": md}
	for p, v := range fields {
		parts := strings.Split(p, ".")
		cur := o
		for _, part := range parts[:len(parts)-1] {
			next, ok := cur[part].(map[string]any)
			if !ok {
				next = map[string]any{}
				cur[part] = next
			}
			cur = next
		}
		cur[parts[len(parts)-1]] = v
	}
	return o
}

func ownedBy(kind, name, uid string) []any {
	return []any{map[string]any{"apiVersion": "example.org/v1", "kind": kind, "name": name, "uid": uid, "controller": true}}
}

func claim(ns, uid string, fields map[string]any) map[string]any {
	if fields == nil {
		fields = map[string]any{}
	}
	if _, ok := fields["status.conditions"]; !ok {
		fields["status.conditions"] = []any{map[string]any{"type": "Ready", "status": "True"}}
	}
	return object("example.org/v1", "Claim", ns, "app", uid, fields)
}

// evidence is the run's evidence: its histories, facts and proxy log,
// the end state taken at 5s.
func (r *run) evidence() *evidence.Evidence {
	var names []string
	for h := range r.hist {
		names = append(names, h)
	}
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	facts := map[string]string{
		FactSteadyHistories.Name: strings.Join(sortedStrings(names), ","),
		FactSteadyObjects.Name:   SteadyKey(claims, r.ns, "app"),
		FactSteadyNamespace.Name: r.ns,
		FactSteadyEnd.Name:       js(EndMark{Applied: r.at(0.1), At: r.at(5), Objects: []string{SteadyKey(claims, r.ns, "app")}, Namespace: r.ns}),
	}
	for k, v := range r.facts {
		facts[k] = v
	}
	return &evidence.Evidence{Format: evidence.Format, Spec: "constructed " + r.ns, Start: r.t0, End: r.at(r.end), Histories: r.hist,
		Proxies: map[string]evidence.ProxyLog{"c-0": {Requests: r.reqs}}, Faults: r.fault, Facts: facts, Logs: map[string]json.RawMessage{LogPanics + "/c-0": json.RawMessage("[]")}}
}

func sortedStrings(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// endOf is the run's end state, as a reference run keeps it.
func endOf(t *testing.T, r *run) *EndState {
	t.Helper()
	es, err := EndStateOf(r.evidence())
	if err != nil {
		t.Fatal(err)
	}
	es.Spec = "reference " + r.ns
	return es
}

// faulted is r's evidence as a faulted run's: a restart at 1s, compared
// with refs.
func faulted(r *run, refs ...*EndState) *evidence.Evidence {
	if r.fault == nil {
		r.fault = []chaos.Injection{{Fault: restartName, Start: r.at(1), End: r.at(1.2)}}
	}
	e := r.evidence()
	FactSteadyReferences.Put(e, refs)
	return e
}

// judgedOn judges property p on e.
func judgedOn(e *evidence.Evidence, p verdict.Property) verdict.Record {
	return oracle.Judge(e.Start, p, Offline[p.ID](e))
}

func expect(t *testing.T, what string, got verdict.Record, want verdict.Outcome, says string) {
	t.Helper()
	if got.Outcome != want || !strings.Contains(got.Reason, says) {
		t.Errorf("%s: %s %s (%s), want %s saying %q", what, got.ID, got.Outcome, got.Reason, want, says)
	}
}

// A claim whose controller makes a Composite with no ownerReference and
// carries the claim's tier down to it: the Composite is the controller's
// end state too.
func compositeRun(ns string, tier string) *run {
	r := newRun(ns)
	r.hist["steady/composites.example.org"] = nil
	r.put(0.1, claims, claim(ns, ns+"-c", nil))
	r.write(0.3, "create", "example.org", "composites", ns, "app", 201, ns+"-x")
	r.put(0.31, "steady/composites.example.org", object("example.org/v1", "Composite", ns, "app", ns+"-x", map[string]any{"spec.tier": "small"}))
	r.write(2.0, "update", "example.org", "composites", ns, "app", 200, ns+"-x")
	r.put(2.01, "steady/composites.example.org", object("example.org/v1", "Composite", ns, "app", ns+"-x", map[string]any{"spec.tier": tier}))
	return r
}

// Hole 1: what the controller made without an ownerReference was never
// compared; a change not carried down to it passed.
func TestSameEndStateComparesWhatTheControllerMadeWithoutOwner(t *testing.T) {
	refs := []*EndState{endOf(t, compositeRun("ref1", "large")), endOf(t, compositeRun("ref2", "large"))}
	expect(t, "carried down", judgedOn(faulted(compositeRun("run", "large"), refs...), catalog.SteadySameEndState), verdict.Held, "")
	bad := faulted(compositeRun("run", "small"), refs...)
	expect(t, "not carried down", judgedOn(bad, catalog.SteadySameEndState), verdict.Broken, `Composite/app spec.tier: "large" in the reference, "small" after the faults`)
	if b := BoundText(catalog.SteadySameEndState.ID, bad); !strings.Contains(b, "1 objects written without an owner") || !strings.Contains(b, "of kinds Claim, Composite") {
		t.Errorf("the bound does not say what was compared: %q", b)
	}
}

// slotRun: the controller makes a cluster-scoped Slot named after the
// run's namespace; recreate deletes and makes it again after the fault.
func slotRun(ns string, recreate bool) *run {
	r := newRun(ns)
	const slots = "steady/slots.example.org"
	r.hist[slots] = nil
	r.put(0.1, claims, claim(ns, ns+"-c", nil))
	r.write(0.3, "create", "example.org", "slots", "", ns+"-app", 201, ns+"-s1")
	r.put(0.31, slots, object("example.org/v1", "Slot", "", ns+"-app", ns+"-s1", map[string]any{"spec.tier": "small"}))
	if recreate {
		r.write(1.5, "delete", "example.org", "slots", "", ns+"-app", 200, "")
		r.put(1.51, slots, object("example.org/v1", "Slot", "", ns+"-app", ns+"-s1", map[string]any{"spec.tier": "small"}), "DELETED")
		r.write(1.6, "create", "example.org", "slots", "", ns+"-app", 201, ns+"-s2")
		r.put(1.61, slots, object("example.org/v1", "Slot", "", ns+"-app", ns+"-s2", map[string]any{"spec.tier": "small"}))
	}
	return r
}

// Hole 2: no-churn counted only the namespace's objects; a cluster-scoped
// child deleted and made again after a restart held.
func TestNoChurnCountsClusterScopedChildren(t *testing.T) {
	refs := []*EndState{endOf(t, slotRun("ref1", false)), endOf(t, slotRun("ref2", false))}
	expect(t, "kept", judgedOn(faulted(slotRun("run", false), refs...), catalog.SteadyNoChurn), verdict.Held, "")
	expect(t, "made again", judgedOn(faulted(slotRun("run", true), refs...), catalog.SteadyNoChurn), verdict.Broken, "it deleted Slot/{{.Namespace}}-app")
}

// deletionRun: the claim deleted at 6s and gone at 6.2s; more adds what
// the controller does meanwhile.
func deletionRun(more func(r *run)) *evidence.Evidence {
	r := newRun("ns")
	r.put(0.1, claims, claim("ns", "c1", nil))
	if more != nil {
		more(r)
	}
	r.put(6.2, claims, claim("ns", "c1", nil), "DELETED")
	r.end = 20
	e := r.evidence()
	FactSteadyDeleted.Put(e, Deletion{Applied: r.at(0.1), At: r.at(6), Within: "10s"})
	return e
}

// Hole 3: a create in another namespace was never looked for; one left
// behind held.
func TestLeavesNothingBehindLooksInOtherNamespaces(t *testing.T) {
	h := SteadyHistoryIn("configmaps", "operator-system")
	made := func(deleted bool) func(r *run) {
		return func(r *run) {
			r.hist[h] = nil
			r.write(0.4, "create", "", "configmaps", "operator-system", "app-audit", 201, "cm1")
			r.put(0.5, h, object("v1", "ConfigMap", "operator-system", "app-audit", "cm1", nil))
			if deleted {
				r.write(6.1, "delete", "", "configmaps", "operator-system", "app-audit", 200, "")
				r.put(6.15, h, object("v1", "ConfigMap", "operator-system", "app-audit", "cm1", nil), "DELETED")
			}
		}
	}
	expect(t, "cleaned up", judgedOn(deletionRun(made(true)), catalog.SteadyLeavesNothing), verdict.Held, "")
	left := deletionRun(made(false))
	expect(t, "left", judgedOn(left, catalog.SteadyLeavesNothing), verdict.Broken, "ConfigMap "+h+":operator-system/app-audit (created by the controller at 00:00:00.400) not deleted")
	if b := BoundText(catalog.SteadyLeavesNothing.ID, left); !strings.Contains(b, "namespace operator-system") {
		t.Errorf("the bound does not name the other namespace: %q", b)
	}
}

// Hole 4: objects made by a server-side apply (a patch answered 201) and
// deleted by collection were invisible.
func TestApplyAndDeleteCollectionAreCreatesAndDeletes(t *testing.T) {
	cms := "steady/configmaps"
	left := deletionRun(func(r *run) {
		r.hist[cms] = nil
		r.write(0.4, "patch", "", "configmaps", "ns", "app-mirror", 201, "m1")
		r.put(0.5, cms, object("v1", "ConfigMap", "ns", "app-mirror", "m1", nil))
	})
	expect(t, "made by apply, left", judgedOn(left, catalog.SteadyLeavesNothing), verdict.Broken, "app-mirror (created by the controller")

	churn := func(ns string, again bool) *run {
		r := newRun(ns)
		r.hist[cms] = nil
		r.put(0.1, claims, claim(ns, ns+"-c", nil))
		labels := map[string]any{"app": "a"}
		cm := func(uid string) map[string]any {
			return object("v1", "ConfigMap", ns, "app-config", uid, map[string]any{"metadata.labels": labels, "metadata.ownerReferences": ownedBy("Claim", "app", ns+"-c")})
		}
		r.write(0.3, "patch", "", "configmaps", ns, "app-config", 201, ns+"-m1")
		r.put(0.31, cms, cm(ns+"-m1"))
		if again {
			r.reqs = append(r.reqs, proxy.Request{ID: 99, Replica: "c-0", RequestInfo: proxy.RequestInfo{Verb: "deletecollection", Resource: "configmaps", Namespace: ns, LabelSelector: "app=a"}, Code: 200, Start: r.at(1.5), End: r.at(1.52)})
			r.put(1.53, cms, cm(ns+"-m1"), "DELETED")
			r.write(1.6, "patch", "", "configmaps", ns, "app-config", 201, ns+"-m2")
			r.put(1.61, cms, cm(ns+"-m2"))
		}
		return r
	}
	refs := []*EndState{endOf(t, churn("ref1", false)), endOf(t, churn("ref2", false))}
	expect(t, "applied once", judgedOn(faulted(churn("run", false), refs...), catalog.SteadyNoChurn), verdict.Held, "")
	expect(t, "deleted by collection, applied again", judgedOn(faulted(churn("run", true), refs...), catalog.SteadyNoChurn), verdict.Broken,
		"it deleted Claim/app > ConfigMap/app-config (steady/configmaps:run/app-config at 00:00:01.500), which the reference run keeps (deleting 0 of it); it created 2 configmaps, the reference run 1")
}

// Hole 5: what the controller made after the deletion began was never
// tracked; a child made again as its parent went, and left, held.
func TestLeavesNothingBehindTracksCreatesAfterTheDeletion(t *testing.T) {
	left := deletionRun(func(r *run) {
		r.hist["steady/configmaps"] = nil
		r.write(6.05, "create", "", "configmaps", "ns", "app-late", 201, "late")
		r.put(6.06, "steady/configmaps", object("v1", "ConfigMap", "ns", "app-late", "late", nil))
	})
	expect(t, "made as the claim went", judgedOn(left, catalog.SteadyLeavesNothing), verdict.Broken, "app-late (created by the controller at 00:00:06.050) not deleted")
}

// Hole 6: a custom resource was ready unless Ready, Reconciling or
// Stalled said otherwise.
func TestConditionsThatSayWhichWayIsHealthy(t *testing.T) {
	for _, tc := range []struct {
		typ, status string
		ready       bool
	}{
		{"Available", "False", false}, {"Available", "True", true},
		{"Degraded", "True", false}, {"Degraded", "False", true},
		{"Synced", "False", false}, {"Active", "False", true},
	} {
		o := &unstructured.Unstructured{Object: claim("ns", "u", map[string]any{"status.conditions": []any{
			map[string]any{"type": "Ready", "status": "True"}, map[string]any{"type": tc.typ, "status": tc.status, "reason": "Because"},
		}})}
		if ready, why := ObjectReady(o, nil); ready != tc.ready {
			t.Errorf("%s=%s: ready %v (%s), want %v", tc.typ, tc.status, ready, why, tc.ready)
		}
	}
	// Kubernetes' own kinds are kstatus's to judge.
	d := &unstructured.Unstructured{Object: object("apps/v1", "Deployment", "ns", "d", "u", map[string]any{"metadata.generation": int64(1), "spec.replicas": int64(1),
		"status.observedGeneration": int64(1), "status.replicas": int64(1), "status.updatedReplicas": int64(1), "status.readyReplicas": int64(1), "status.availableReplicas": int64(1),
		"status.conditions": []any{map[string]any{"type": "Available", "status": "True"}, map[string]any{"type": "ReplicaFailure", "status": "False"}}})}
	if ready, why := ObjectReady(d, nil); !ready {
		t.Errorf("a ready Deployment: %s", why)
	}
}

// varyRun: a ConfigMap the claim owns with a token that differs in every
// run, and a count of shards that differs between clean runs.
func varyRun(ns, token string, shards int) *run {
	r := newRun(ns)
	cms := "steady/configmaps"
	r.hist[cms] = nil
	r.put(0.1, claims, claim(ns, ns+"-c", nil))
	data := map[string]any{"tier": "small"}
	if token != "" {
		data["token"] = token
	}
	r.put(0.3, cms, object("v1", "ConfigMap", ns, "app-config", ns+"-cm", map[string]any{"data": data, "metadata.ownerReferences": ownedBy("Claim", "app", ns+"-c")}))
	for i := range shards {
		r.put(0.4, cms, object("v1", "ConfigMap", ns, fmt.Sprintf("app-shard-%d", i), fmt.Sprintf("%s-s%d", ns, i), map[string]any{"metadata.generateName": "app-shard-", "metadata.ownerReferences": ownedBy("Claim", "app", ns+"-c")}))
	}
	return r
}

// Hole 7: a field whose value varied between the clean runs was masked
// even where the faulted run lacked it, on every object of its kind; a
// count that varied masked any count.
func TestLearnedMasksAreNoWiderThanWhatVaried(t *testing.T) {
	refs := []*EndState{endOf(t, varyRun("ref1", "aaaa", 1)), endOf(t, varyRun("ref2", "bbbb", 2))}
	expect(t, "another token", judgedOn(faulted(varyRun("run", "cccc", 2), refs...), catalog.SteadySameEndState), verdict.Held, "")
	expect(t, "no token", judgedOn(faulted(varyRun("run", "", 1), refs...), catalog.SteadySameEndState), verdict.Broken, `data.token: "aaaa" in the reference, absent after the faults`)
	expect(t, "no shard", judgedOn(faulted(varyRun("run", "cccc", 0), refs...), catalog.SteadySameEndState), verdict.Broken, "1 objects in the reference, 0 after the faults")
	if b := BoundText(catalog.SteadySameEndState.ID, faulted(varyRun("run", "cccc", 1), refs...)); !strings.Contains(b, "Claim/app > ConfigMap/app-config data.token (value)") || !strings.Contains(b, "1 to 2 objects") {
		t.Errorf("the bound does not name what was learned: %q", b)
	}
}

// quietRun: settled, a quiet window 1s-3s, a change at 3s; acted says the
// controller wrote for it.
func quietRun(writesInWindow, acted bool) *evidence.Evidence {
	r := newRun("ns")
	r.put(0.1, claims, claim("ns", "c1", nil))
	if writesInWindow {
		r.write(2, "patch", "example.org", "claims", "ns", "app", 200, "c1")
		r.reqs[len(r.reqs)-1].Subresource = "status"
	}
	if acted {
		r.write(3.2, "patch", "example.org", "claims", "ns", "app", 200, "c1")
	}
	e := r.evidence()
	FactSteadyQuiet.Put(e, QuietWindow{From: r.at(1), To: r.at(3), Window: "2s", Next: &QuietProbe{What: "patch Claim/app", At: r.at(3), Within: "2s"}})
	return e
}

// Hole 8: quiescent had no liveness: a hung controller, quiet because it
// no longer acts, held.
func TestQuiescentAsksTheQuietControllerToAct(t *testing.T) {
	expect(t, "quiet, then acts", judgedOn(quietRun(false, true), catalog.SteadyQuiescent), verdict.Held, "")
	expect(t, "quiet, then hung", judgedOn(quietRun(false, false), catalog.SteadyQuiescent), verdict.Broken, "no write within 2s of patch Claim/app")
	expect(t, "writes", judgedOn(quietRun(true, true), catalog.SteadyQuiescent), verdict.Broken, "wrote 1 times")
	// An access review in the window (a controller's start-up check) is
	// no write.
	asked := quietRun(false, true)
	asked.Proxies["c-0"] = evidence.ProxyLog{Requests: append([]proxy.Request{{ID: 99, Replica: "c-0", RequestInfo: proxy.RequestInfo{Verb: "create", Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"}, Code: 201, Start: asked.Start.Add(2 * time.Second), End: asked.Start.Add(2010 * time.Millisecond)}}, asked.Proxies["c-0"].Requests...)}
	expect(t, "asks", judgedOn(asked, catalog.SteadyQuiescent), verdict.Held, "")
	if b := BoundText(catalog.SteadyQuiescent.ID, quietRun(false, true)); !strings.Contains(b, "window 2s") || !strings.Contains(b, "drew a write within 2s") {
		t.Errorf("bound %q", b)
	}
}

// Hole 9: an end state taken before the changes left after an unsettled
// recovery was compared with references that made them all.
func TestSameEndStateIsNotBoundWhenChangesWereSkipped(t *testing.T) {
	e := quietRun(false, true)
	FactSteadyEnd.Put(e, EndMark{Applied: e.Start, At: e.End, Objects: []string{"x"}, Made: 1, Changes: 2})
	if why := SameEndStateUnbound(e); !strings.Contains(why, "after 1 of the binding's 2 changes") {
		t.Errorf("unbound %q", why)
	}
	FactSteadyEnd.Put(e, EndMark{Applied: e.Start, At: e.End, Objects: []string{"x"}, Made: 2, Changes: 2})
	if why := SameEndStateUnbound(e); why != "" {
		t.Errorf("every change made, yet unbound: %q", why)
	}
}

// Hole 10: a watch that never came back left quiescent not bound and the
// run passed; the controller stopped watching: recovers breaks.
func TestRecoversBreaksWhenAWatchNeverComesBack(t *testing.T) {
	r := newRun("ns")
	r.put(0.1, claims, claim("ns", "c1", nil))
	e := r.evidence()
	FactSteadyRecover.Put(e, []SettlePhase{{What: "the forced relists", Since: r.at(1), Within: "2s", Window: "1s", Objects: []string{SteadyKey(claims, "ns", "app")}}})
	expect(t, "watching", judgedOn(e, catalog.SteadyRecovers), verdict.Held, "")
	FactSteadyStale.Put(e, Stale{Resources: []string{"priorityclasses"}, Within: "2s"})
	expect(t, "not watching what it watched in passing", judgedOn(e, catalog.SteadyRecovers), verdict.Held, "")
	FactSteadyStale.Put(e, Stale{Resources: []string{"claims", "priorityclasses"}, Within: "2s", Reconciled: []string{"claims"}})
	expect(t, "not watching what it reconciles", judgedOn(e, catalog.SteadyRecovers), verdict.Broken, "did not watch claims again within 2s")

	// The evidence ends before the phase's T+W with the claim not ready:
	// that phase is not judged, yet the watch never back is a finding.
	r = newRun("ns")
	r.put(0.1, claims, claim("ns", "c1", map[string]any{"status.conditions": []any{map[string]any{"type": "Ready", "status": "False"}}}))
	r.end = 1.5
	cut := r.evidence()
	cut.Faults = []chaos.Injection{{Fault: "watch-stall", Start: r.at(0.5), End: r.at(0.9)}}
	cut.Facts[FactSteadyRecover.Name] = e.Facts[FactSteadyRecover.Name]
	expect(t, "cut short", judgedOn(cut, catalog.SteadyRecovers), verdict.NotEvaluated, "the evidence ends")
	cut.Facts[FactSteadyStale.Name] = e.Facts[FactSteadyStale.Name]
	expect(t, "cut short, not watching", judgedOn(cut, catalog.SteadyRecovers), verdict.Broken, "did not watch claims again within 2s")
}

// podRefRun: a ConfigMap names the uid of the claim's Member (as an
// EndpointSlice names a pod's); dangling, the Member was made again and
// the ConfigMap left naming the old one.
func podRefRun(ns string, dangling bool) *run {
	r := newRun(ns)
	pods, cms := "steady/members.example.org", "steady/configmaps"
	r.hist[pods], r.hist[cms] = nil, nil
	r.put(0.1, claims, claim(ns, ns+"-c", nil))
	r.put(0.2, pods, object("example.org/v1", "Member", ns, "app-0", ns+"-p1", map[string]any{"metadata.ownerReferences": ownedBy("Claim", "app", ns+"-c")}))
	ref := ns + "-p1"
	if dangling {
		r.put(1.5, pods, object("example.org/v1", "Member", ns, "app-0", ns+"-p1", nil), "DELETED")
		r.put(1.6, pods, object("example.org/v1", "Member", ns, "app-0", ns+"-p2", map[string]any{"metadata.ownerReferences": ownedBy("Claim", "app", ns+"-c")}))
	}
	r.put(0.3, cms, object("v1", "ConfigMap", ns, "app-ep", ns+"-cm", map[string]any{"data.podUID": "0000000" + ref[len(ref)-1:] + "-1111-2222-3333-444444444444", "metadata.ownerReferences": ownedBy("Claim", "app", ns+"-c")}))
	// uids shaped as uids: the pod's is what the ConfigMap names.
	for i, e := range r.hist[pods] {
		md := e.Object["metadata"].(map[string]any)
		uid := md["uid"].(string)
		md["uid"] = "0000000" + uid[len(uid)-1:] + "-1111-2222-3333-444444444444"
		r.hist[pods][i] = e
	}
	return r
}

// Hole 12: every uid was masked alike, so a reference to an object that
// is gone held.
func TestUIDReferencesNameTheObjectTheyReferTo(t *testing.T) {
	refs := []*EndState{endOf(t, podRefRun("ref1", false)), endOf(t, podRefRun("ref2", false))}
	expect(t, "live reference", judgedOn(faulted(podRefRun("run", false), refs...), catalog.SteadySameEndState), verdict.Held, "")
	expect(t, "dangling", judgedOn(faulted(podRefRun("run", true), refs...), catalog.SteadySameEndState), verdict.Broken, `data.podUID: "<uid of Claim/app > Member/app-0>" in the reference, "<uid of no recorded object>" after the faults`)
}

// finalizerRun: the claim's ConfigMap, with an extra finalizer or an
// owner that is not its controller.
func finalizerRun(ns string, extra, notController bool) *run {
	r := newRun(ns)
	r.hist["steady/configmaps"] = nil
	r.put(0.1, claims, claim(ns, ns+"-c", nil))
	owner := ownedBy("Claim", "app", ns+"-c")
	if notController {
		owner[0].(map[string]any)["controller"] = false
	}
	f := map[string]any{"metadata.ownerReferences": owner}
	if extra {
		f["metadata.finalizers"] = []any{"example.org/hold"}
	}
	r.put(0.3, "steady/configmaps", object("v1", "ConfigMap", ns, "app-config", ns+"-cm", f))
	return r
}

// Hole 13: the finalizers and ownerReferences of what the objects own
// were never compared.
func TestFinalizersAndOwnerReferencesAreCompared(t *testing.T) {
	refs := []*EndState{endOf(t, finalizerRun("ref1", false, false)), endOf(t, finalizerRun("ref2", false, false))}
	expect(t, "same", judgedOn(faulted(finalizerRun("run", false, false), refs...), catalog.SteadySameEndState), verdict.Held, "")
	expect(t, "extra finalizer", judgedOn(faulted(finalizerRun("run", true, false), refs...), catalog.SteadySameEndState), verdict.Broken, `metadata.finalizers[0]: absent in the reference, "example.org/hold" after the faults`)
	expect(t, "not the controller", judgedOn(faulted(finalizerRun("run", false, true), refs...), catalog.SteadySameEndState), verdict.Broken, "metadata.ownerReferences[0].controller: true in the reference, false after the faults")
}

// Hole 14: an ignore path applied to every kind, and the verdict did not
// say what it masked.
func TestIgnorePathsAreScopedAndListed(t *testing.T) {
	refs := []*EndState{endOf(t, finalizerRun("ref1", false, false)), endOf(t, finalizerRun("ref2", false, false))}
	e := faulted(finalizerRun("run", true, false), refs...)
	FactSteadyIgnore.Put(e, []string{"Claim:status.conditions"})
	expect(t, "ignored on another kind", judgedOn(e, catalog.SteadySameEndState), verdict.Broken, "metadata.finalizers")
	FactSteadyIgnore.Put(e, []string{"ConfigMap:metadata.finalizers"})
	expect(t, "ignored on its kind", judgedOn(e, catalog.SteadySameEndState), verdict.Held, "")
	if b := BoundText(catalog.SteadySameEndState.ID, e); !strings.Contains(b, `"ConfigMap:metadata.finalizers" masked Claim/app > ConfigMap/app-config metadata.finalizers[0]`) {
		t.Errorf("the bound does not list what the ignore path masked: %q", b)
	}
	left := deletionRun(func(r *run) {
		r.hist["steady/configmaps"] = nil
		r.write(0.4, "create", "", "configmaps", "ns", "app-ca", 201, "ca")
		r.put(0.5, "steady/configmaps", object("v1", "ConfigMap", "ns", "app-ca", "ca", nil))
	})
	FactSteadyShared.Put(left, Names{"ConfigMap"})
	expect(t, "shared", judgedOn(left, catalog.SteadyLeavesNothing), verdict.Held, "")
	if b := BoundText(catalog.SteadyLeavesNothing.ID, left); !strings.Contains(b, "exempted as shared: ConfigMap steady/configmaps:ns/app-ca") {
		t.Errorf("the bound does not list what shared exempted: %q", b)
	}
}

// Hole 15: a premise not evaluated did not stop the checks after it.
func TestAPremiseNotEvaluatedStopsTheRest(t *testing.T) {
	recs := oracle.Validate(time.Now(),
		oracle.Check{Property: catalog.SteadyRestarted, Run: func() error { return fmt.Errorf("%w: no timeline", oracle.ErrNotEvaluated) }},
		oracle.Check{Property: catalog.SteadyRecovers, Run: func() error { return fmt.Errorf("broken") }},
	)
	if recs[1].Outcome != verdict.NotEvaluated || !strings.Contains(recs[1].Reason, "was not evaluated") {
		t.Errorf("after a premise not evaluated: %s %q", recs[1].Outcome, recs[1].Reason)
	}
}

// Hole 16: the restart premises of an upgrade and of the first creates.
func TestRestartPremises(t *testing.T) {
	settled := func(restartAt float64) *evidence.Evidence {
		r := newRun("ns")
		r.put(0.1, claims, claim("ns", "c1", nil))
		r.fault = []chaos.Injection{{Fault: restartName, Start: r.at(restartAt), End: r.at(restartAt + 0.1)}}
		e := r.evidence()
		FactSteadySettle.Put(e, []SettlePhase{{What: "the objects were applied", Since: r.at(0.1), Within: "2s", Window: "1s", Objects: []string{SteadyKey(claims, "ns", "app")}}})
		return e
	}
	expect(t, "restart once settled", judgedOn(settled(2), catalog.SteadyRestartedSettled), verdict.Held, "")
	expect(t, "restart before W", judgedOn(settled(0.5), catalog.SteadyRestartedSettled), verdict.Broken, "before the objects had settled")

	creates := func(ns string, restarts ...float64) *run {
		r := newRun(ns)
		r.hist["steady/configmaps"], r.hist["steady/secrets"] = nil, nil
		r.put(0.1, claims, claim(ns, ns+"-c", nil))
		r.write(0.3, "create", "", "configmaps", ns, "a", 201, ns+"-a")
		r.put(0.31, "steady/configmaps", object("v1", "ConfigMap", ns, "a", ns+"-a", nil))
		r.write(0.8, "create", "", "secrets", ns, "b", 201, ns+"-b")
		r.put(0.81, "steady/secrets", object("v1", "Secret", ns, "b", ns+"-b", nil))
		for _, at := range restarts {
			r.fault = append(r.fault, chaos.Injection{Fault: restartName, Start: r.at(at), End: r.at(at + 0.1)})
		}
		return r
	}
	refs := []*EndState{endOf(t, creates("ref1")), endOf(t, creates("ref2"))}
	expect(t, "after each first create", judgedOn(faulted(creates("run", 0.32, 0.82), refs...), catalog.SteadyRestartedCreates), verdict.Held, "")
	expect(t, "one restart for both", judgedOn(faulted(creates("run", 0.82), refs...), catalog.SteadyRestartedCreates), verdict.Held, "")
	expect(t, "no restart after the second", judgedOn(faulted(creates("run", 0.32), refs...), catalog.SteadyRestartedCreates), verdict.Broken, "first created secrets")
	expect(t, "long after", judgedOn(faulted(creates("run", 0.32, 3), refs...), catalog.SteadyRestartedCreates), verdict.Broken, "after the first create it followed")
	// The second create is answered while the first restart still goes
	// on (1.6 s): the next restart follows it as soon as that one ends.
	slow := creates("run", 0.32, 2.35)
	slow.fault[0].End = slow.at(2.3)
	expect(t, "after a slow restart", judgedOn(faulted(slow, refs...), catalog.SteadyRestartedCreates), verdict.Held, "")

	// The second restart cut off the Secret's create (no answer), which
	// made it all the same; the restarted controller deletes it and
	// makes it again, answered. The first create of Secrets is the cut
	// one, and the restart followed it.
	cutOff := func(madeByCut bool) *run {
		r := newRun("run")
		r.hist["steady/configmaps"], r.hist["steady/secrets"] = nil, nil
		r.put(0.1, claims, claim("run", "run-c", nil))
		r.write(0.3, "create", "", "configmaps", "run", "a", 201, "run-a")
		r.put(0.31, "steady/configmaps", object("v1", "ConfigMap", "run", "a", "run-a", nil))
		r.write(0.33, "create", "", "secrets", "run", "b", 0, "")
		r.reqs[len(r.reqs)-1].Object = &proxy.ObjectRef{Name: "b"}
		if madeByCut {
			r.put(0.335, "steady/secrets", object("v1", "Secret", "run", "b", "run-b", nil))
			r.write(1.0, "delete", "", "secrets", "run", "b", 200, "")
			r.put(1.005, "steady/secrets", object("v1", "Secret", "run", "b", "run-b", nil), "DELETED")
		}
		r.write(1.1, "create", "", "secrets", "run", "b", 201, "run-b2")
		r.put(1.105, "steady/secrets", object("v1", "Secret", "run", "b", "run-b2", nil))
		r.fault = []chaos.Injection{{Fault: restartName, Start: r.at(0.32), End: r.at(0.9)}}
		return r
	}
	expect(t, "a cut create made its object", judgedOn(faulted(cutOff(true), refs...), catalog.SteadyRestartedCreates), verdict.Held, "")
	expect(t, "a cut create made nothing", judgedOn(faulted(cutOff(false), refs...), catalog.SteadyRestartedCreates), verdict.Broken, "first created secrets")
}

// Hole 17: the harness's write fell back on an object the controller
// does not see (its watch selects by label).
func TestWatchSelectorsSayWhatTheControllerSees(t *testing.T) {
	cm := &unstructured.Unstructured{Object: object("v1", "ConfigMap", "ns", "kube-root-ca.crt", "u", nil)}
	mine := &unstructured.Unstructured{Object: object("v1", "ConfigMap", "ns", "app-config", "u2", map[string]any{"metadata.labels": map[string]any{"app": "a"}})}
	for _, tc := range []struct {
		label, field string
		o            *unstructured.Unstructured
		want         bool
	}{
		{"app=a", "", cm, false}, {"app=a", "", mine, true}, {"", "", cm, true},
		{"", "metadata.name=app-config", mine, true}, {"", "metadata.name=app-config", cm, false},
		{"", "spec.nodeName=n1", mine, false},
	} {
		if got := WatchSelects(proxy.RequestInfo{Verb: "watch", Resource: "configmaps", LabelSelector: tc.label, FieldSelector: tc.field}, tc.o); got != tc.want {
			t.Errorf("labels %q fields %q on %s: %v, want %v", tc.label, tc.field, tc.o.GetName(), got, tc.want)
		}
	}
}

// Hole 18: an access review is created, answered and never stored; it
// was counted as an object no history recorded.
func TestWhatTheServerDoesNotStoreLeavesNothing(t *testing.T) {
	e := deletionRun(func(r *run) {
		r.write(0.15, "create", "reviews.example.org", "widgetreviews", "", "", 201, "")
	})
	expect(t, "not known unstored", judgedOn(e, catalog.SteadyLeavesNothing), verdict.NotEvaluated, "widgetreviews.reviews.example.org")
	FactSteadyUnstored.Put(e, Names{"widgetreviews.reviews.example.org"})
	expect(t, "unstored", judgedOn(e, catalog.SteadyLeavesNothing), verdict.Held, "")
	// An access review is a question, never a write: nothing to record.
	e = deletionRun(func(r *run) {
		r.write(0.15, "create", "authorization.k8s.io", "selfsubjectaccessreviews", "", "", 201, "")
	})
	expect(t, "an access review", judgedOn(e, catalog.SteadyLeavesNothing), verdict.Held, "")
}

// workloadRun: the claim owns one Workload named from the claim's uid.
func workloadRun(ns string, names ...string) *run {
	r := newRun(ns)
	const wl = "steady/workloads.example.org"
	r.hist[wl] = nil
	r.put(0.1, claims, claim(ns, ns+"-c", nil))
	for i, n := range names {
		r.put(0.3, wl, object("example.org/v1", "Workload", ns, n, fmt.Sprintf("%s-w%d", ns, i), map[string]any{"spec.queue": "q", "metadata.ownerReferences": ownedBy("Claim", "app", ns+"-c")}))
	}
	return r
}

// Hole 20: a child named from a hash of its owner's uid has another name
// in every run; it was a false finding.
func TestNamesThatVaryBetweenCleanRunsAreMatchedByOwnerAndKind(t *testing.T) {
	refs := []*EndState{endOf(t, workloadRun("ref1", "job-sample-23c41")), endOf(t, workloadRun("ref2", "job-sample-cec5e"))}
	expect(t, "one, named anew", judgedOn(faulted(workloadRun("run", "job-sample-77c07"), refs...), catalog.SteadySameEndState), verdict.Held, "")
	expect(t, "two", judgedOn(faulted(workloadRun("run", "job-sample-77c07", "job-sample-00000"), refs...), catalog.SteadySameEndState), verdict.Broken, "Claim/app > Workload/*: 1 objects in the reference, 2 after the faults")
}

// Hole 21: a controller that never acted, or panicked in every
// reconcile, passed the clean runs.
func TestActsAndNoPanic(t *testing.T) {
	r := newRun("ns")
	r.put(0.1, claims, claim("ns", "c1", nil))
	idle := r.evidence()
	expect(t, "idle", judgedOn(idle, catalog.SteadyActs), verdict.Broken, "made no write")
	r.write(0.2, "create", "authorization.k8s.io", "selfsubjectaccessreviews", "", "", 201, "")
	expect(t, "only asked", judgedOn(r.evidence(), catalog.SteadyActs), verdict.Broken, "made no write")
	r.write(0.3, "update", "example.org", "claims", "ns", "app", 200, "c1")
	expect(t, "acted", judgedOn(r.evidence(), catalog.SteadyActs), verdict.Held, "")

	expect(t, "calm", judgedOn(idle, catalog.SteadyNoPanic), verdict.Held, "")
	out := []byte("I1201 reconciling\nE1201 12:00:00.1 Observed a panic in reconciler: runtime error: invalid memory address or nil pointer dereference\npanic: boom\n")
	lines := PanicLines(out, 20)
	if len(lines) != 2 || lines[0].N != 2 || lines[1].N != 3 {
		t.Fatalf("panic lines %+v", lines)
	}
	b, _ := json.Marshal(lines)
	idle.Logs[LogPanics+"/c-0"] = b
	expect(t, "panics", judgedOn(idle, catalog.SteadyNoPanic), verdict.Broken, "c-0 line 2: E1201 12:00:00.1 Observed a panic in reconciler")
	delete(idle.Logs, LogPanics+"/c-0")
	expect(t, "no output kept", judgedOn(idle, catalog.SteadyNoPanic), verdict.NotEvaluated, "the output of replica")
}

// A namespace controller acts by writing a Namespace's finalize or
// status subresource, at /api/v1/namespaces/NAME/finalize: the write of a
// cluster-scoped object, recorded by the history of namespaces, not one
// inside NAME (as the API server's own request info would have it, and
// the proxy once recorded it: acts then broke on a controller that
// acted).
func TestAWriteToANamespaceIsOfAClusterScopedObject(t *testing.T) {
	r := newRun("ns")
	const nss = "steady/namespaces"
	r.hist[nss] = nil
	r.put(0.1, nss, object("v1", "Namespace", "", "ns-doomed", "d1", nil))
	for i, path := range []string{"/api/v1/namespaces/ns-doomed/status", "/api/v1/namespaces/ns-doomed/finalize"} {
		u, err := url.Parse(path)
		if err != nil {
			t.Fatal(err)
		}
		req := proxy.Request{ID: uint64(i + 1), Replica: "c-0", RequestInfo: proxy.ParseRequest(http.MethodPut, u), Code: 200, Start: r.at(6), End: r.at(6.01)}
		r.reqs = []proxy.Request{req}
		expect(t, path, judgedOn(r.evidence(), catalog.SteadyActs), verdict.Held, "")
	}
}

// secretsRun: the applied Claim lists a Secret in its secrets, as a
// ServiceAccount lists its token Secrets; the Secret is deleted, and the
// controller removes the reference (cleared) or, its write refused once,
// never does. The API server gives every Claim an address of its own
// choosing, which no manager sets (spec.address, one per run).
func secretsRun(ns string, cleared bool, address string) *run {
	r := newRun(ns)
	harness := map[string]any{"manager": "steadystate", "operation": "Update", "fieldsV1": map[string]any{
		"f:spec": map[string]any{"f:tier": map[string]any{}}, "f:secrets": map[string]any{}}}
	fields := map[string]any{"spec.tier": "small", "spec.address": address, "secrets": []any{map[string]any{"name": "token"}},
		"metadata.managedFields": []any{harness}}
	r.put(0.1, claims, claim(ns, ns+"-c", fields))
	if cleared {
		r.write(2, "update", "example.org", "claims", ns, "app", 200, ns+"-c")
		delete(harness["fieldsV1"].(map[string]any), "f:secrets")
		controller := map[string]any{"manager": "kube-controller-manager", "operation": "Update", "fieldsV1": map[string]any{"f:metadata": map[string]any{"f:annotations": map[string]any{}}}}
		r.put(2.01, claims, claim(ns, ns+"-c", map[string]any{"spec.tier": "small", "spec.address": address, "metadata.managedFields": []any{harness, controller}}))
	}
	return r
}

// An applied object's fields beside its status were never compared: a
// reference the controller should have cleared from it (a
// ServiceAccount's secrets, after its token Secret went) and never did
// held same-end-state. What someone set is compared now; what the API
// server chose (an address, a node port) is not, so it cannot differ by
// chance.
func TestAnAppliedObjectsFieldsTheControllerWroteAreCompared(t *testing.T) {
	refs := []*EndState{endOf(t, secretsRun("ref1", true, "10.0.0.7")), endOf(t, secretsRun("ref2", true, "10.0.0.7"))}
	expect(t, "cleared", judgedOn(faulted(secretsRun("run", true, "10.0.0.9"), refs...), catalog.SteadySameEndState), verdict.Held, "")
	expect(t, "left", judgedOn(faulted(secretsRun("run", false, "10.0.0.7"), refs...), catalog.SteadySameEndState), verdict.Broken, "secrets")
	// Evidence kept before version 3 compared the applied objects' status
	// alone, and is judged as it was.
	for _, ref := range refs {
		ref.Version = endStateWritten
	}
	expect(t, "left, version 2 references", judgedOn(faulted(secretsRun("run", false, "10.0.0.7"), refs...), catalog.SteadySameEndState), verdict.Held, "")
}

// recordRun: the controller keeps a record of the run in the namespace
// default, named after the run's namespace; again deletes and makes it
// again after the fault.
func recordRun(ns string, again bool) *run {
	r := newRun(ns)
	h := SteadyHistoryIn("configmaps", "default")
	r.hist[h] = nil
	r.put(0.1, claims, claim(ns, ns+"-c", nil))
	name := "stack-" + ns + "-app"
	r.write(0.3, "create", "", "configmaps", "default", name, 201, ns+"-r1")
	r.put(0.31, h, object("v1", "ConfigMap", "default", name, ns+"-r1", map[string]any{"data.stack": ns + "/app"}))
	if again {
		r.write(1.5, "delete", "", "configmaps", "default", name, 200, "")
		r.put(1.51, h, object("v1", "ConfigMap", "default", name, ns+"-r1", nil), "DELETED")
		r.write(1.6, "create", "", "configmaps", "default", name, 201, ns+"-r2")
		r.put(1.61, h, object("v1", "ConfigMap", "default", name, ns+"-r2", map[string]any{"data.stack": ns + "/app"}))
	}
	return r
}

// Holes 2 and 3: what the controller keeps for the run in another
// namespace (its name carries the run's) is the run's to compare and to
// count, as a cluster-scoped child is.
func TestNoChurnCountsTheRunsRecordInAnotherNamespace(t *testing.T) {
	refs := []*EndState{endOf(t, recordRun("ref1", false)), endOf(t, recordRun("ref2", false))}
	expect(t, "kept", judgedOn(faulted(recordRun("run", false), refs...), catalog.SteadyNoChurn), verdict.Held, "")
	expect(t, "kept, same end", judgedOn(faulted(recordRun("run", false), refs...), catalog.SteadySameEndState), verdict.Held, "")
	expect(t, "made again", judgedOn(faulted(recordRun("run", true), refs...), catalog.SteadyNoChurn), verdict.Broken, "it deleted ConfigMap/stack-{{.Namespace}}-app")
}

// ruleFileRun: the claim owns a ConfigMap holding a file named after the
// run's namespace and the claim's uid, as the Prometheus operator names
// a rule file after its PrometheusRule.
func ruleFileRun(ns, uid string) *run {
	r := newRun(ns)
	r.hist["steady/configmaps"] = nil
	r.put(0.1, claims, claim(ns, uid, nil))
	r.put(0.3, "steady/configmaps", object("v1", "ConfigMap", ns, "app-rules", ns+"-cm", map[string]any{
		"data": map[string]any{ns + "-app-" + uid + ".yaml": "groups: []"}, "metadata.ownerReferences": ownedBy("Claim", "app", uid)}))
	return r
}

// A name or key that carries the run's namespace and a uid is masked
// inside, as a whole value is: the same file in every run.
func TestKeysCarryingTheNamespaceAndAUIDAreMasked(t *testing.T) {
	uid := func(n string) string { return "0000000" + n + "-1111-2222-3333-444444444444" }
	refs := []*EndState{endOf(t, ruleFileRun("ref1", uid("1"))), endOf(t, ruleFileRun("ref2", uid("2")))}
	expect(t, "same file", judgedOn(faulted(ruleFileRun("run", uid("3")), refs...), catalog.SteadySameEndState), verdict.Held, "")
}

// A state missing an object every clean run ended with is not ready yet
// after the last change: a controller backing off before it makes again
// what a fault took (the EndpointSlice controller after refused creates)
// looked ready without it, and its end state was taken too early.
func TestObjectsTheCleanRunsEndedWithAreOwed(t *testing.T) {
	refs := []*EndState{endOf(t, finalizerRun("ref1", false, false)), endOf(t, finalizerRun("ref2", false, false))}
	owed := ObjectsOwed(refs)
	if owed["ConfigMap"] != 1 || len(owed) != 1 {
		t.Fatalf("owed %v, want one ConfigMap", owed)
	}
	key := SteadyKey(claims, "run", "app")
	match := AllReady([]string{key}, WithObjectsOwed(nil, owed))
	st := oracle.State{key: &unstructured.Unstructured{Object: claim("run", "run-c", nil)}}
	if ok, why := match(st); ok || !strings.Contains(why, "the objects own 0 ConfigMap, every clean reference run ended with at least 1") {
		t.Errorf("without the ConfigMap: %v %q", ok, why)
	}
	st[SteadyKey("steady/configmaps", "run", "app-config")] = &unstructured.Unstructured{Object: object("v1", "ConfigMap", "run", "app-config", "cm", map[string]any{"metadata.ownerReferences": ownedBy("Claim", "app", "run-c")})}
	if ok, why := match(st); !ok {
		t.Errorf("with the ConfigMap: not ready: %s", why)
	}
}

// A Job a queueing controller holds suspended is at rest, not in
// progress: kstatus calls it not started for good.
func TestASuspendedJobIsAtRest(t *testing.T) {
	job := func(suspend bool, cond string) *unstructured.Unstructured {
		f := map[string]any{"spec.suspend": suspend}
		if cond != "" {
			f["status.conditions"] = []any{map[string]any{"type": "Suspended", "status": cond}}
		}
		return &unstructured.Unstructured{Object: object("batch/v1", "Job", "ns", "work", "u", f)}
	}
	if ready, why := ObjectReady(job(true, "True"), nil); !ready {
		t.Errorf("suspended: %s", why)
	}
	if ready, _ := ObjectReady(job(true, ""), nil); ready {
		t.Error("asked to suspend, not yet suspended: ready")
	}
	if ready, _ := ObjectReady(job(false, ""), nil); ready {
		t.Error("not started: ready")
	}
}

// An apply a restart cut off (no answer: code 0) may still have made
// its object: the recorded state says it did, and the object is the
// controller's to compare, as in a run where the answer came.
func TestAnApplyCutOffByARestartStillMadeItsObject(t *testing.T) {
	mirror := func(ns string, code int) *run {
		r := newRun(ns)
		r.hist["steady/configmaps"] = nil
		r.put(0.1, claims, claim(ns, ns+"-c", nil))
		r.write(0.3, "patch", "", "configmaps", ns, "app-mirror", code, ns+"-m")
		r.put(0.31, "steady/configmaps", object("v1", "ConfigMap", ns, "app-mirror", ns+"-m", map[string]any{"data.tier": "small"}))
		return r
	}
	refs := []*EndState{endOf(t, mirror("ref1", 201)), endOf(t, mirror("ref2", 201))}
	expect(t, "cut off", judgedOn(faulted(mirror("run", 0), refs...), catalog.SteadySameEndState), verdict.Held, "")
}

// A create a restart cut off (no answer) names, from its body, the object
// it may have made; the state says it did, in another namespace here.
func TestACreateCutOffByARestartStillMadeItsObject(t *testing.T) {
	record := func(ns string, code int) *run {
		r := recordRun(ns, false)
		if code == 0 {
			last := &r.reqs[len(r.reqs)-1]
			last.Code, last.Object = 0, &proxy.ObjectRef{Name: "stack-" + ns + "-app"}
		}
		return r
	}
	refs := []*EndState{endOf(t, record("ref1", 201)), endOf(t, record("ref2", 201))}
	expect(t, "cut off", judgedOn(faulted(record("run", 0), refs...), catalog.SteadySameEndState), verdict.Held, "")
}

// remakeRun: the claim owns one Workload named from a uid, which the
// controller deletes and makes again, under a new name, times times.
func remakeRun(ns string, times int) *run {
	r := newRun(ns)
	const wl = "steady/workloads.example.org"
	r.hist[wl] = nil
	r.put(0.1, claims, claim(ns, ns+"-c", nil))
	hash := map[string]string{"ref1": "23c41", "ref2": "cec5e", "run": "77c07"}[ns]
	name := func(i int) string { return fmt.Sprintf("job-%s%d", hash, i) }
	wlObj := func(i int) map[string]any {
		return object("example.org/v1", "Workload", ns, name(i), fmt.Sprintf("%s-w%d", ns, i), map[string]any{"spec.queue": "q", "metadata.ownerReferences": ownedBy("Claim", "app", ns+"-c")})
	}
	r.write(0.3, "create", "example.org", "workloads", ns, name(0), 201, fmt.Sprintf("%s-w0", ns))
	r.put(0.31, wl, wlObj(0))
	for i := 1; i <= times; i++ {
		at := 1.5 + float64(i)*0.2
		r.write(at, "delete", "example.org", "workloads", ns, name(i-1), 200, "")
		r.put(at+0.01, wl, wlObj(i-1), "DELETED")
		r.write(at+0.1, "create", "example.org", "workloads", ns, name(i), 201, fmt.Sprintf("%s-w%d", ns, i))
		r.put(at+0.11, wl, wlObj(i))
	}
	return r
}

// no-churn counts deletes by the identity compared: a child named anew
// in every run, deleted and made again as often as in the clean runs,
// is no churn; once more is.
func TestNoChurnCountsDeletesOfNamesThatVary(t *testing.T) {
	refs := []*EndState{endOf(t, remakeRun("ref1", 1)), endOf(t, remakeRun("ref2", 1))}
	expect(t, "as often", judgedOn(faulted(remakeRun("run", 1), refs...), catalog.SteadyNoChurn), verdict.Held, "")
	expect(t, "once more", judgedOn(faulted(remakeRun("run", 2), refs...), catalog.SteadyNoChurn), verdict.Broken, "Claim/app > Workload/")
}

// rootFields keeps what a manager set, down to a map's fields, and a list
// whole; what the API server chose alone goes.
func TestRootFieldsKeepsWhatWasSet(t *testing.T) {
	svc := map[string]any{
		"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{"name": "web", "managedFields": []any{
			map[string]any{"manager": "steadystate", "operation": "Update", "fieldsV1": map[string]any{
				"f:spec": map[string]any{"f:ports": map[string]any{`k:{"port":80,"protocol":"TCP"}`: map[string]any{".": map[string]any{}}}, "f:selector": map[string]any{}}}},
		}},
		"spec": map[string]any{"clusterIP": "10.0.0.17", "clusterIPs": []any{"10.0.0.17"}, "ports": []any{map[string]any{"port": int64(80), "protocol": "TCP"}},
			"selector": map[string]any{"app": "web"}, "sessionAffinity": "None"},
		"status": map[string]any{"loadBalancer": map[string]any{}},
	}
	rootFields(svc)
	spec, _ := svc["spec"].(map[string]any)
	if len(spec) != 2 || spec["ports"] == nil || spec["selector"] == nil {
		t.Errorf("spec kept %v, want ports and selector only", spec)
	}
	if svc["status"] == nil || svc["metadata"] == nil {
		t.Errorf("status or metadata dropped: %v", svc)
	}
	bare := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c"}, "data": map[string]any{"k": "v"}}
	if rootFields(bare); bare["data"] != nil {
		t.Errorf("no managedFields, data kept: %v", bare)
	}
}

// The same hole on a recorded run: a replay of
// suites/explore/testdata/serviceaccount-token-refused.yaml against
// Kubernetes' tokens controller (fixtures/zoo/serviceaccount-token.yaml,
// v1.36.3): its update removing the deleted robot-token from robot's
// secrets was answered 500 and never made again. The end state compares
// robot's secrets and breaks; compared as end states of version 2 (status
// and metadata only), the same run held.
func TestATokensControllerThatLeftADeletedSecretNamedBreaks(t *testing.T) {
	e := readEvidence(t, filepath.Join("serviceaccount", "explore-refused.json"))
	expect(t, "recorded", judgedOn(e, catalog.SteadySameEndState), verdict.Broken, `ServiceAccount/robot secrets[0].name: absent in the reference, "robot-token" after the faults`)
	judgeReferencesAsVersion2(t, e)
	expect(t, "version 2 references", judgedOn(e, catalog.SteadySameEndState), verdict.Held, "")
}

// TestAStackWhoseSlotNameARestartRewroteBreaks judges a recorded run of
// the stack controller's planted defect slot-name-rewritten-after-restart
// (the self-test corpus, the spec that restarts the controller right
// after its first write): the restarted process wrote the Stack's own
// spec.slotName wrongly, and its status, children and metadata are right.
// Only end states that compare an applied object's fields beside its
// status see it: judged as end states of version 2, it passes.
func TestAStackWhoseSlotNameARestartRewroteBreaks(t *testing.T) {
	e := readEvidence(t, filepath.Join("stack", "slot-name-rewritten.json"))
	expect(t, "recorded", judgedOn(e, catalog.SteadySameEndState), verdict.Broken, `Stack/steady spec.slotName`)
	judgeReferencesAsVersion2(t, e)
	expect(t, "version 2 references", judgedOn(e, catalog.SteadySameEndState), verdict.Held, "")
}

// judgeReferencesAsVersion2 marks the reference end states e records as
// of version 2 (endStateWritten): compared as they were before an applied
// object's own fields beside its status were.
func judgeReferencesAsVersion2(t *testing.T, e *evidence.Evidence) {
	t.Helper()
	var refs []*EndState
	if err := json.Unmarshal([]byte(e.Facts[FactSteadyReferences.Name]), &refs); err != nil {
		t.Fatal(err)
	}
	for _, ref := range refs {
		ref.Version = endStateWritten
	}
	FactSteadyReferences.Put(e, refs)
}

// A finished pod the harness deleted is owed by nothing: no controller
// makes it again (a completed Indexed Job's pod stays done), so the
// objects owe one pod fewer after it; a running pod's deletion owes its
// replacement and lowers nothing. The floor held a completed JobSet
// unsettled after a schedule deleted one of its Succeeded pods.
func TestAFinishedPodDeletedIsNotOwedAgain(t *testing.T) {
	r := newRun("run")
	r.hist["steady/pods"] = nil
	r.put(0.1, claims, claim("run", "run-c", nil))
	pod := func(name, phase string) map[string]any {
		return object("v1", "Pod", "run", name, name+"-uid", map[string]any{"status.phase": phase, "metadata.ownerReferences": ownedBy("Claim", "app", "run-c")})
	}
	r.put(0.3, "steady/pods", pod("done", "Succeeded"))
	r.put(0.3, "steady/pods", pod("busy", "Running"))
	r.put(2, "steady/pods", pod("done", "Succeeded"), "DELETED")
	r.put(3, "steady/pods", pod("busy", "Running"), "DELETED")
	deleted := func(name string, s float64) Disturbance {
		return Disturbance{Key: SteadyKey("steady/pods", "run", name), Resource: "pods", Kind: "Pod", Namespace: "run", Name: name, Owned: true, At: r.at(s)}
	}
	owed := map[string]int{"Pod": 2, "ConfigMap": 1}
	src := r.evidence()
	for _, c := range []struct {
		what string
		ds   []Disturbance
		want map[string]int
	}{
		{"none deleted", nil, owed},
		{"the finished pod", []Disturbance{deleted("done", 2)}, map[string]int{"Pod": 1, "ConfigMap": 1}},
		{"the running pod", []Disturbance{deleted("busy", 3)}, owed},
		{"both", []Disturbance{deleted("done", 2), deleted("busy", 3)}, map[string]int{"Pod": 1, "ConfigMap": 1}},
	} {
		got := ObjectsOwedAfter(owed, c.ds, read(src).steadySource())
		if !maps.Equal(got, c.want) {
			t.Errorf("%s: owed %v, want %v", c.what, got, c.want)
		}
	}
	if owed["Pod"] != 2 {
		t.Errorf("owed itself changed: %v", owed)
	}
	// The judges read the floor so: the run's recorded owed objects,
	// lowered by what it recorded the harness deleted.
	e := r.evidence()
	FactSteadyObjectsOwed.Put(e, map[string]int{"Pod": 2})
	FactSteadyDisturbed.Put(e, []Disturbance{deleted("done", 2)})
	if got := read(e).objectsOwed(); got["Pod"] != 1 {
		t.Errorf("the judges' floor: %v, want 1 Pod", got)
	}
	// One pod (a finished one made again) left: ready with the lowered floor, not with the reference runs' own.
	key := SteadyKey(claims, "run", "app")
	st := oracle.State{key: &unstructured.Unstructured{Object: claim("run", "run-c", nil)},
		SteadyKey("steady/pods", "run", "again"): &unstructured.Unstructured{Object: pod("again", "Succeeded")}}
	if ok, why := AllReady([]string{key}, WithObjectsOwed(nil, map[string]int{"Pod": 1}))(st); !ok {
		t.Errorf("lowered floor: not ready: %s", why)
	}
	if ok, _ := AllReady([]string{key}, WithObjectsOwed(nil, map[string]int{"Pod": 2}))(st); ok {
		t.Error("the reference runs' floor: ready with one pod of two")
	}
}

// The recorded history of the hunt's jobset schedule 010: its pod
// deletion took a pod that had Succeeded, and the completed JobSet never
// owned the clean runs' 5 pods again. recovers holds on it; without the
// record of the deletion (the floor not lowered, as before the fix) it
// breaks on the missing pod, the false alarm the hunt reported.
func TestRecoversOnAJobSetWhoseFinishedPodWasDeleted(t *testing.T) {
	e := readEvidence(t, "jobset/explore-jobset-steady-finished-pod-deleted.json")
	expect(t, "the finished pod's deletion recorded", judgedOn(e, catalog.SteadyRecovers), verdict.Held, "")
	e.Facts = maps.Clone(e.Facts)
	delete(e.Facts, FactSteadyDisturbed.Name)
	expect(t, "without it", judgedOn(e, catalog.SteadyRecovers), verdict.Broken, "the objects own 4 Pod, every clean reference run ended with at least 5")
}
