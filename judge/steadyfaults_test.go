package judge

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// faultedSteady is the constructed correct steady-state run (constructSteady)
// with a fault of the pattern named in place of its restart, around the
// change at 3s, which the harness made while the fault acted: a stall of
// 2.9s-4s that held the Widget's event until it went; a drop of 2.9s-3.5s
// that dropped it, then a forced relist of widgets at 3.6s; writes
// answered 429 (2.9s-3.3s), 500 (3.3s-3.6s) and 409 (3.6s-4s). Its
// records are the premise's and no-churn's, both held.
func faultedSteady(pattern string) *evidence.Evidence {
	e := constructSteady("correct")
	r := &steadyRun{t0: e.Start}
	e.Spec = "steadystate constructed " + pattern
	d := Disturbance{What: `patch Widget/w1 {"spec":{"size":2}}`, Key: SteadyKey(steadyWidgets, "ns", "w1"), Resource: "widgets.example.org", Kind: "Widget", Namespace: "ns", Name: "w1", At: r.at(3)}
	FactSteadyDisturbed.Put(e, []Disturbance{d})
	p := e.Proxies["steady-0"]
	rules := func(id string) map[string]string { return map[string]string{chaos.DetailRules: "steady-0=" + id} }
	widgetEvent := func(s float64, delivered bool, fault string) proxy.Event {
		return proxy.Event{Replica: "steady-0", EventMeta: proxy.EventMeta{Type: "MODIFIED", Kind: "Widget", Namespace: "ns", Name: "w1", ResourceVersion: "121"}, Delivered: delivered, Fault: fault, At: r.at(s)}
	}
	e.Faults = nil
	var premise verdict.Property
	switch pattern {
	case "stale-view":
		premise = catalog.SteadyStaleView
		e.Faults = []chaos.Injection{{Fault: faultStall, Target: "steady-0", Start: r.at(2.9), End: r.at(4), Detail: rules("stall-1")}}
		p.Events = append(p.Events, widgetEvent(4, true, "stall-1"))
	case "missed-events":
		premise = catalog.SteadyMissedEvents
		relist := rules("expire-2")
		relist[chaos.DetailResource], relist[chaos.DetailWatches] = "widgets.example.org", "1"
		e.Faults = []chaos.Injection{
			{Fault: faultDrop, Target: "steady-0", Start: r.at(2.9), End: r.at(3.5), Detail: rules("drop-1")},
			{Fault: faultRelist, Target: "steady-0", Start: r.at(3.6), End: r.at(3.7), Detail: relist},
		}
		p.Events = append(p.Events, widgetEvent(3.01, false, "drop-1"),
			proxy.Event{Replica: "steady-0", EventMeta: proxy.EventMeta{Type: "ERROR", Kind: "Status", Code: 410, Reason: "Expired"}, Delivered: true, Fault: "expire-2", At: r.at(3.65)})
	case "writes-refused":
		premise = catalog.SteadyWritesRefused
		for i, code := range RefusedCodes {
			id := "respond-" + string(rune('3'+i))
			s := 2.9 + 0.35*float64(i)
			e.Faults = append(e.Faults, chaos.Injection{Fault: RespondFault(code), Target: "steady-0", Start: r.at(s), End: r.at(s + 0.3), Detail: rules(id)})
			p.Requests = append(p.Requests, proxy.Request{ID: uint64(100 + i), Replica: "steady-0", RequestInfo: proxy.RequestInfo{Verb: "update", Resource: "configmaps", Namespace: "ns", Name: "w1-data"}, Code: code, Fault: id, Start: r.at(s + 0.1), End: r.at(s + 0.1)})
		}
	}
	e.Proxies["steady-0"] = p
	e.Records = []verdict.Record{{Property: premise, Outcome: verdict.Held}, {Property: catalog.SteadyNoChurn, Outcome: verdict.Held}}
	return e
}

// TestSteadyFaultPremises: each fault's premise holds on its constructed
// run, and breaks, saying why, when the fault did not act: a stall that
// held nothing of the write, a write made outside the fault, a drop that
// dropped nothing of it, a relist of another resource or none answered
// 410, a code that answered no write of an object or was armed before the
// one before it, a fault that failed. Without the harness's writes
// recorded it is not evaluated.
func TestSteadyFaultPremises(t *testing.T) {
	id := map[string]string{"stale-view": catalog.SteadyStaleView.ID, "missed-events": catalog.SteadyMissedEvents.ID, "writes-refused": catalog.SteadyWritesRefused.ID}
	for _, tc := range []struct {
		pattern, name string
		change        func(e *evidence.Evidence)
		want          verdict.Outcome
		reason        string
	}{
		{"stale-view", "as constructed", nil, verdict.Held, ""},
		{"stale-view", "held nothing of the write", func(e *evidence.Evidence) { e.Proxies["steady-0"].Events[0].Fault = "" }, verdict.Broken, "the stall held no event of Widget ns/w1"},
		{"stale-view", "written after the stall", func(e *evidence.Evidence) { e.Faults[0].End = e.Start.Add(2950 * time.Millisecond) }, verdict.Broken, "saw no write of the harness"},
		{"stale-view", "the stall failed", func(e *evidence.Evidence) { e.Faults[0].Error = "watch-stall on steady-0: connection refused" }, verdict.Broken, "connection refused"},
		{"stale-view", "no write recorded", func(e *evidence.Evidence) { delete(e.Facts, FactSteadyDisturbed.Name) }, verdict.NotEvaluated, FactSteadyDisturbed.Name},
		{"missed-events", "as constructed", nil, verdict.Held, ""},
		{"missed-events", "dropped nothing of the write", func(e *evidence.Evidence) { e.Proxies["steady-0"].Events[0].Name = "w2" }, verdict.Broken, "the drop dropped no event of Widget ns/w1"},
		{"missed-events", "relisted another resource", func(e *evidence.Evidence) { e.Faults[1].Detail[chaos.DetailResource] = "configmaps" }, verdict.Broken, "no forced relist of widgets.example.org answered"},
		{"missed-events", "no 410 reached it", func(e *evidence.Evidence) { e.Proxies["steady-0"].Events[1].Delivered = false }, verdict.Broken, "with 410 Expired"},
		{"missed-events", "it listed afresh by itself", relistedBySelf(true), verdict.Held, ""},
		{"missed-events", "named as relisted, no fresh list logged", relistedBySelf(false), verdict.Broken, "nor saw it start over"},
		{"missed-events", "a fresh list logged, not named as relisted", func(e *evidence.Evidence) {
			relistedBySelf(true)(e)
			delete(e.Faults[1].Detail, chaos.DetailRelisted)
		}, verdict.Broken, "nor saw it start over"},
		{"missed-events", "the relist failed", func(e *evidence.Evidence) {
			e.Faults[1].Error = "replicas [steady-0] did not re-watch widgets within 30s of the cut"
		}, verdict.Broken, "did not re-watch"},
		{"writes-refused", "as constructed", nil, verdict.Held, ""},
		{"writes-refused", "500 answered a Lease write only", func(e *evidence.Evidence) {
			p := e.Proxies["steady-0"]
			for i := range p.Requests {
				if p.Requests[i].Code == 500 {
					p.Requests[i].Group, p.Requests[i].Resource = "coordination.k8s.io", "leases"
				}
			}
		}, verdict.Broken, "the respond-500 (00:00:03.250-00:00:03.550) answered no write"},
		{"writes-refused", "409 armed before 500 was lifted", func(e *evidence.Evidence) { e.Faults[2].Start = e.Start.Add(3400 * time.Millisecond) }, verdict.Held, ""},
		{"writes-refused", "409 armed before 500", func(e *evidence.Evidence) { e.Faults[2].Start = e.Start.Add(3200 * time.Millisecond) }, verdict.Broken, "before the respond-500 (00:00:03.250)"},
		{"writes-refused", "no 409", func(e *evidence.Evidence) { e.Faults = e.Faults[:2] }, verdict.Broken, "the timeline has no respond-409"},
		{"writes-refused", "written before the faults", func(e *evidence.Evidence) {
			e.Facts[FactSteadyDisturbed.Name] = strings.Replace(e.Facts[FactSteadyDisturbed.Name], "00:00:03Z", "00:00:02Z", 1)
		}, verdict.Broken, "the harness wrote nothing while the answers were refused"},
	} {
		e := faultedSteady(tc.pattern)
		if tc.change != nil {
			tc.change(e)
		}
		got := judged(t, id[tc.pattern], e)
		if got.Outcome != tc.want || !strings.Contains(got.Reason, tc.reason) {
			t.Errorf("%s, %s: %s %q, want %s with %q", tc.pattern, tc.name, got.Outcome, got.Reason, tc.want, tc.reason)
		}
	}
}

// relistedBySelf makes the missed-events run's forced relist one whose
// replica started widgets over by itself (its cut watch-list had not
// synced) instead of taking the 410, with its watch-list from no resource
// version in the proxy log (logged) or not.
func relistedBySelf(logged bool) func(e *evidence.Evidence) {
	return func(e *evidence.Evidence) {
		p := e.Proxies["steady-0"]
		p.Events[1].Delivered = false
		if logged {
			at := e.Faults[1].Start.Add(20 * time.Millisecond)
			p.Requests = append(p.Requests, proxy.Request{ID: 900, Replica: "steady-0", RequestInfo: proxy.RequestInfo{Verb: "watch", Group: "example.org", Resource: "widgets", Namespace: "ns", SendInitialEvents: true}, Code: 200, Start: at})
		}
		e.Proxies["steady-0"] = p
		e.Faults[1].Detail[chaos.DetailRelisted] = "steady-0"
	}
}

// TestNoChurnOwesWhatTheHarnessDeleted: a controller that creates its
// ConfigMap again after the fault breaks no-churn against the reference
// run's one create, unless the harness deleted that ConfigMap of its own
// while the fault acted: then one more create is owed, and a second one
// still breaks it.
func TestNoChurnOwesWhatTheHarnessDeleted(t *testing.T) {
	recreated := func(creates int, owned bool) *evidence.Evidence {
		e := faultedSteady("stale-view")
		r := &steadyRun{t0: e.Start}
		p := e.Proxies["steady-0"]
		for i := range creates {
			at := r.at(4.1 + 0.1*float64(i))
			p.Requests = append(p.Requests, proxy.Request{Replica: "steady-0", RequestInfo: proxy.RequestInfo{Verb: "create", Resource: "configmaps", Namespace: "ns"}, Code: 201, Start: at, End: at})
		}
		e.Proxies["steady-0"] = p
		if owned {
			ds := []Disturbance{{What: "delete ConfigMap ns/w1-data, the controller's own", Key: SteadyKey(steadyCMs, "ns", "w1-data"), Resource: "configmaps", Kind: "ConfigMap", Namespace: "ns", Name: "w1-data", Owned: true, At: r.at(3)}}
			FactSteadyDisturbed.Put(e, ds)
		}
		return e
	}
	for _, tc := range []struct {
		name    string
		creates int
		owned   bool
		want    verdict.Outcome
		reason  string
	}{
		{"created again, nothing deleted", 1, false, verdict.Broken, "it created 2 configmaps, the reference run 1"},
		{"created again what the harness deleted", 1, true, verdict.Held, ""},
		{"created twice what the harness deleted once", 2, true, verdict.Broken, "it created 3 configmaps, the reference run 1 (and 1 more owed for what the harness deleted of its own)"},
	} {
		e := recreated(tc.creates, tc.owned)
		got := oracle.Judge(e.Start, catalog.SteadyNoChurn, Offline[catalog.SteadyNoChurn.ID](e))
		if got.Outcome != tc.want || !strings.Contains(got.Reason, tc.reason) {
			t.Errorf("%s: %s %q, want %s with %q", tc.name, got.Outcome, got.Reason, tc.want, tc.reason)
		}
	}
	if b := BoundText(catalog.SteadyNoChurn.ID, recreated(1, true)); !strings.Contains(b, "one more of each object of its own the harness deleted (configmaps 1)") {
		t.Errorf("no-churn's bound does not name what is owed: %q", b)
	}
}

// TestRecordedOwnedDeletionIsOwed re-judges a run of Kubernetes'
// ReplicaSet controller (fixtures/zoo/replicaset.yaml without its changes)
// through the missed-events spec: with no change bound, the harness
// deleted one of its pods while the pod and ReplicaSet events were
// dropped, then forced a relist. Every property held; the controller
// made three pods where the clean runs made two, the third the one owed
// for the pod the harness deleted. The same run without that deletion
// recorded as the controller's own breaks no-churn on that third pod.
func TestRecordedOwnedDeletionIsOwed(t *testing.T) {
	read := func() *evidence.Evidence {
		return readEvidence(t, filepath.Join("replicaset", "steadystate-replicaset-missed-events-owned-delete.json"))
	}
	e := read()
	for _, rec := range e.Records {
		if got := judged(t, rec.ID, e); got.Outcome != verdict.Held {
			t.Errorf("%s as recorded: %s (%s), want held", rec.ID, got.Outcome, got.Reason)
		}
	}
	e = read()
	var ds []Disturbance
	if err := json.Unmarshal([]byte(e.Facts[FactSteadyDisturbed.Name]), &ds); err != nil || len(ds) != 1 || !ds[0].Owned || ds[0].Kind != "Pod" {
		t.Fatalf("the recorded run's disturbance is not the deletion of a pod of its own: %v %+v", err, ds)
	}
	ds[0].Owned = false
	FactSteadyDisturbed.Put(e, ds)
	if got := judged(t, catalog.SteadyNoChurn.ID, e); got.Outcome != verdict.Broken || !strings.Contains(got.Reason, "it created 3 pods, the reference run 2") {
		t.Errorf("the deleted pod not recorded as the controller's own: %s %q, want broken on its third pod", got.Outcome, got.Reason)
	}
}

// TestAnotherNamespaceIsNotTheRuns re-judges a run of the garbage
// collector (fixtures/zoo/gc-foreground.yaml) through the missed-events
// spec. The collector watches every namespace; during the run it deleted
// a ReplicaSet of the namespace an earlier spec left to be cleaned up, one
// no history of this run records. no-churn, which counted the
// controller's writes in every namespace, was not evaluated on that
// delete ("deleted objects no history recorded"); it counts the run's
// namespace only and holds. The same delete in the run's namespace, of
// the ReplicaSet the reference runs keep, breaks it.
func TestAnotherNamespaceIsNotTheRuns(t *testing.T) {
	read := func() *evidence.Evidence {
		return readEvidence(t, filepath.Join("gc-foreground", "steadystate-gc-foreground-missed-events.json"))
	}
	e := read()
	if got := judged(t, catalog.SteadyNoChurn.ID, e); got.Outcome != verdict.Held {
		t.Errorf("as recorded: %s (%s), want held", got.Outcome, got.Reason)
	}
	es, err := EndStateOf(e)
	if err != nil {
		t.Fatal(err)
	}
	p, moved := e.Proxies["gc-foreground-0"], false
	for i, r := range p.Requests {
		if r.Verb == "delete" && r.Resource == "replicasets" && r.Namespace != es.Namespace {
			p.Requests[i].Namespace, moved = es.Namespace, true
		}
	}
	if !moved {
		t.Fatal("the recorded run has no delete in another namespace")
	}
	if got := judged(t, catalog.SteadyNoChurn.ID, e); got.Outcome != verdict.Broken || !strings.Contains(got.Reason, "it deleted Deployment/api > ReplicaSet/api-") {
		t.Errorf("the delete in the run's namespace: %s %q, want broken on Deployment/api's ReplicaSet", got.Outcome, got.Reason)
	}
}

// TestRefusalThatDrewNoWriteIsNotBound re-judges a run of Kubernetes' Job
// controller (fixtures/zoo/job.yaml) through the refused-writes spec: once
// its Jobs completed, neither the change (the finished Job deleted in the
// foreground) nor the deletion of a pod of its own drew a write from it
// while the 429 was armed. The premise, judged, broke ("answered no write
// of the controller") and the spec was an error; the refusal found the
// controller with nothing to do, so the premise is not bound, saying so.
// A write the rule answered, or one of the run's that went past it, makes
// it judged again; a write in another namespace does not.
func TestRefusalThatDrewNoWriteIsNotBound(t *testing.T) {
	read := func() *evidence.Evidence {
		return readEvidence(t, filepath.Join("job", "steadystate-job-writes-refused-no-write.json"))
	}
	e := read()
	if got := judged(t, catalog.SteadyWritesRefused.ID, e); got.Outcome != verdict.Broken || !strings.Contains(got.Reason, "answered no write of the controller") {
		t.Fatalf("the recorded run's premise, judged: %s %q, want broken on the 429 that answered nothing", got.Outcome, got.Reason)
	}
	if why := WritesRefusedUnbound(e); !strings.Contains(why, "the controller made no write while the refusal was armed") || !strings.Contains(why, "delete Job/batch (propagationPolicy Foreground)") {
		t.Errorf("as recorded: not bound because %q, want the controller made no write while the refusal was armed, naming the harness's writes", why)
	}
	// The spec records its other properties not bound with its premise;
	// re-judged, they stay so (quiescent's own rule finds it bound).
	quiet := verdict.Record{Property: catalog.SteadyQuiescent, Outcome: verdict.NotBound}
	if got, remade := RejudgeNotBound(quiet, e); !remade || got.Outcome != verdict.NotBound || !strings.Contains(got.Reason, "reconcile/writes-refused not bound") {
		t.Errorf("quiescent of a spec whose premise was not bound, re-judged: %s %q", got.Outcome, got.Reason)
	}
	// A premise the run found not bound from what it recorded (no first
	// create to restart after) says so in the evidence.
	fact := func(premise verdict.Property, why string) string {
		b, _ := json.Marshal(SpecNotBound{Premise: premise.ID, Why: why})
		return string(b)
	}
	restarts := &evidence.Evidence{Facts: map[string]string{FactSpecNotBound.Name: fact(catalog.SteadyRestartedCreates, "the clean reference runs saw the controller create nothing")}}
	if got, remade := RejudgeNotBound(quiet, restarts); !remade || got.Outcome != verdict.NotBound || !strings.Contains(got.Reason, "create nothing") {
		t.Errorf("quiescent of a restart spec with no first create, re-judged: %s %q", got.Outcome, got.Reason)
	}
	// What the run recorded never overrides a premise's own rule where
	// its fault acted: a write the 429 answered, in the frozen evidence,
	// makes the premise and the spec's other properties bound again.
	refused := verdict.Record{Property: catalog.SteadyWritesRefused, Outcome: verdict.NotBound}
	answered := read()
	answered.Facts[FactSpecNotBound.Name] = fact(catalog.SteadyWritesRefused, "nothing to refuse, as the run saw it")
	inj, err := Injected(answered.Faults, RespondFault(RefusedCodes[0]))
	if err != nil {
		t.Fatal(err)
	}
	p := answered.Proxies["job-0"]
	p.Requests = append(p.Requests, proxy.Request{Replica: "job-0", RequestInfo: proxy.RequestInfo{Verb: "update", Group: "batch", Resource: "jobs", Subresource: "status", Namespace: "steady-rxb7x", Name: "indexed"}, Code: 429, Fault: "respond-1", Start: inj[0].Start.Add(time.Second), End: inj[0].Start.Add(time.Second)})
	answered.Proxies["job-0"] = p
	for _, rec := range []verdict.Record{refused, quiet} {
		if got, _ := RejudgeNotBound(rec, answered); got.Outcome != verdict.NotEvaluated {
			t.Errorf("%s of a spec whose refusal answered a write, re-judged: %s %q, want not evaluated (bound)", rec.ID, got.Outcome, got.Reason)
		}
	}
	// A refusal never armed (nothing to disturb): the record stands.
	unarmed := &evidence.Evidence{Facts: map[string]string{FactSpecNotBound.Name: fact(catalog.SteadyWritesRefused, "nothing to disturb")}}
	for _, rec := range []verdict.Record{refused, quiet} {
		if got, _ := RejudgeNotBound(rec, unarmed); got.Outcome != verdict.NotBound || !strings.Contains(got.Reason, "nothing to disturb") {
			t.Errorf("%s of a spec whose refusal was never armed, re-judged: %s %q, want not bound", rec.ID, got.Outcome, got.Reason)
		}
	}

	inRefusal := func(e *evidence.Evidence, req proxy.Request) {
		inj, err := Injected(e.Faults, RespondFault(RefusedCodes[0]))
		if err != nil {
			t.Fatal(err)
		}
		req.Replica, req.Start, req.End = "job-0", inj[0].Start.Add(time.Second), inj[0].Start.Add(time.Second)
		p := e.Proxies["job-0"]
		p.Requests = append(p.Requests, req)
		e.Proxies["job-0"] = p
	}
	ns := keyNamespace(SteadyKey("steady/jobs.batch", "steady-rxb7x", "batch"))
	for _, tc := range []struct {
		name  string
		req   proxy.Request
		bound bool
	}{
		{"a write the 429 answered", proxy.Request{RequestInfo: proxy.RequestInfo{Verb: "update", Group: "batch", Resource: "jobs", Subresource: "status", Namespace: ns, Name: "indexed"}, Code: 429, Fault: "respond-1"}, true},
		{"a write of the run that went past it", proxy.Request{RequestInfo: proxy.RequestInfo{Verb: "create", Resource: "configmaps", Namespace: ns}, Code: 201}, true},
		{"a write in another namespace", proxy.Request{RequestInfo: proxy.RequestInfo{Verb: "delete", Resource: "pods", Namespace: "steady-earlier", Name: "old"}, Code: 200}, false},
		{"a Lease renewal", proxy.Request{RequestInfo: proxy.RequestInfo{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: ns, Name: "job"}, Code: 200}, false},
	} {
		e := read()
		inRefusal(e, tc.req)
		if why := WritesRefusedUnbound(e); (why == "") != tc.bound {
			t.Errorf("%s: not bound %q, want bound %v", tc.name, why, tc.bound)
		}
	}

	// The constructed run whose writes were refused is judged, and holds.
	e = faultedSteady("writes-refused")
	if why := WritesRefusedUnbound(e); why != "" {
		t.Errorf("constructed refused writes: not bound %q, want judged", why)
	}
	if got := judged(t, catalog.SteadyWritesRefused.ID, e); got.Outcome != verdict.Held {
		t.Errorf("constructed refused writes: %s %q, want held", got.Outcome, got.Reason)
	}
	// Without the harness's writes recorded, nothing says the controller
	// was given something to do: judged (not evaluated), not unbound.
	delete(e.Facts, FactSteadyDisturbed.Name)
	if why := WritesRefusedUnbound(e); why != "" {
		t.Errorf("no write of the harness recorded: not bound %q, want judged", why)
	}
}
