package judge

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

var writeSteady = flag.Bool("steady.write", false, "write the constructed steady-state evidence under testdata")

// steadyRun is a constructed steady-state run of a widget controller: the
// harness applies Widget ns/w1 at 0.1s; the controller marks it not
// ready, creates ConfigMap ns/w1-data owned by it and marks it ready; a
// spec change at 3s is acted on; the controller is killed at 6s and
// restarted at 6.5s; 9s-12s is the quiet window; the widget is deleted at
// 13s and the controller releases its finalizer once the ConfigMap is
// gone. Each variant changes one thing a faulty controller would.
type steadyRun struct {
	variant string
	t0      time.Time
	widgets []oracle.EventRecord
	cms     []oracle.EventRecord
	reqs    []proxy.Request
}

const steadyWidgets, steadyCMs = "steady/widgets.example.org", "steady/configmaps"

func (r *steadyRun) at(s float64) time.Time {
	return r.t0.Add(time.Duration(s * float64(time.Second)))
}

func widget(gen, observed int64, ready string, deleting bool, finalizers ...string) map[string]any {
	md := map[string]any{"name": "w1", "namespace": "ns", "uid": "uid-w1", "generation": gen, "resourceVersion": fmt.Sprint(100 + gen*10 + observed)}
	if deleting {
		md["deletionTimestamp"] = "2026-01-01T00:00:13Z"
	}
	if len(finalizers) > 0 {
		md["finalizers"] = finalizers
	}
	obj := map[string]any{"apiVersion": "example.org/v1", "kind": "Widget", "metadata": md, "spec": map[string]any{"size": gen}}
	if ready != "" {
		// The message varies from run to run (steadyReferences): a
		// field whose value the clean runs teach is noise.
		obj["status"] = map[string]any{"observedGeneration": observed, "message": "took 100ms", "conditions": []any{map[string]any{"type": "Ready", "status": ready}}}
	}
	return obj
}

func configMap(name, uid string, owned bool, size int64) map[string]any {
	md := map[string]any{"name": name, "namespace": "ns", "uid": uid, "resourceVersion": fmt.Sprint(200 + size)}
	if owned {
		md["ownerReferences"] = []any{map[string]any{"apiVersion": "example.org/v1", "kind": "Widget", "name": "w1", "uid": "uid-w1", "controller": true}}
	}
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": md, "data": map[string]any{"size": fmt.Sprint(size)}}
}

func (r *steadyRun) widget(s float64, typ string, obj map[string]any) {
	r.widgets = append(r.widgets, oracle.EventRecord{At: r.at(s), Type: typ, Key: "ns/w1", Object: obj})
}

func (r *steadyRun) cm(s float64, typ, name string, obj map[string]any) {
	r.cms = append(r.cms, oracle.EventRecord{At: r.at(s), Type: typ, Key: "ns/" + name, Object: obj})
}

func (r *steadyRun) req(s float64, verb, group, resource, sub, name string, code int) {
	r.reqs = append(r.reqs, proxy.Request{ID: uint64(len(r.reqs) + 1), Replica: "steady-0", RequestInfo: proxy.RequestInfo{Verb: verb, Group: group, Resource: resource, Subresource: sub, Namespace: "ns", Name: name}, Code: code, Start: r.at(s), End: r.at(s + 0.01)})
}

// constructSteady builds the run of a variant: correct, hot-loop (status
// patched every 200ms once settled), never-ready (the spec change never
// observed), stuck-finalizer (the finalizer never released), orphan (a
// ConfigMap created with no owner and never deleted), recreate (the
// restarted controller deletes its ConfigMap and creates it anew),
// refinalize (it tries to add a finalizer to the deleting widget). Its
// end state is taken at 8.5s and compared with two fault-free reference
// runs of the correct controller (steadyReferences).
func constructSteady(variant string) *evidence.Evidence {
	e := constructSteadyRun(variant)
	r := &steadyRun{t0: e.Start}
	FactSteadyEnd.Put(e, EndMark{Applied: r.at(0.1), At: r.at(8.5), Objects: []string{SteadyKey(steadyWidgets, "ns", "w1")}})
	FactSteadyReferences.Put(e, steadyReferences())
	return e
}

// steadyReferences are two fault-free runs of the correct controller, in
// other namespaces, with other uids and a status message that differs
// between them (a field that varies between clean runs), taken at 5.5s.
func steadyReferences() []*EndState {
	base := constructSteadyRun("correct")
	base.Faults = nil
	r := &steadyRun{t0: base.Start}
	mark, _ := json.Marshal(EndMark{Applied: r.at(0.1), At: r.at(5.5), Objects: []string{SteadyKey(steadyWidgets, "ns", "w1")}})
	base.Facts[FactSteadyEnd.Name] = string(mark)
	es, err := EndStateOf(base)
	if err != nil {
		panic(err)
	}
	var out []*EndState
	for i, took := range []string{"took 95ms", "took 120ms"} {
		b, _ := json.Marshal(es)
		ns := fmt.Sprintf("steady-ref%d", i+1)
		text := strings.NewReplacer(`"ns/`, `"`+ns+`/`, `:ns/`, `:`+ns+`/`, `"namespace":"ns"`, `"namespace":"`+ns+`"`, `"uid-`, `"`+ns+`-uid-`).Replace(string(b))
		var ref EndState
		if err := json.Unmarshal([]byte(text), &ref); err != nil {
			panic(err)
		}
		ref.Spec = fmt.Sprintf("steadystate reference %d", i+1)
		for k, o := range ref.Objects {
			if strings.HasPrefix(k, steadyWidgets) {
				o["status"].(map[string]any)["message"] = took
			}
		}
		out = append(out, &ref)
	}
	return out
}

func constructSteadyRun(variant string) *evidence.Evidence {
	r := &steadyRun{variant: variant, t0: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	fin := "example.org/cleanup"
	// Applied, then reconciled.
	r.widget(0.1, "ADDED", widget(1, 0, "", false))
	r.req(0.2, "patch", "example.org", "widgets", "", "w1", 200) // its finalizer
	r.widget(0.2, "MODIFIED", widget(1, 0, "", false, fin))
	r.req(0.25, "patch", "example.org", "widgets", "status", "w1", 200)
	r.widget(0.3, "MODIFIED", widget(1, 1, "False", false, fin))
	r.req(0.35, "create", "", "configmaps", "", "", 201)
	r.cm(0.4, "ADDED", "w1-data", configMap("w1-data", "uid-c1", true, 1))
	if variant == "orphan" {
		r.req(0.41, "create", "", "configmaps", "", "", 201)
		r.cm(0.42, "ADDED", "w1-cache", configMap("w1-cache", "uid-c2", false, 1))
	}
	r.req(0.45, "patch", "example.org", "widgets", "status", "w1", 200)
	r.widget(0.5, "MODIFIED", widget(1, 1, "True", false, fin))
	r.req(1.0, "create", "", "events", "", "", 201)
	// The change.
	r.widget(3.0, "MODIFIED", widget(2, 1, "True", false, fin))
	if variant != "never-ready" {
		r.req(3.1, "update", "", "configmaps", "", "w1-data", 200)
		r.cm(3.1, "MODIFIED", "w1-data", configMap("w1-data", "uid-c1", true, 2))
		r.req(3.15, "patch", "example.org", "widgets", "status", "w1", 200)
		r.widget(3.2, "MODIFIED", widget(2, 2, "True", false, fin))
	}
	// Killed at 6s, restarted at 6.5s: it reads, and has nothing to do.
	restart := chaos.Injection{Fault: chaos.ProcessFault{Action: chaos.Restart}.Name(), Target: "steady-0", Start: r.at(6), End: r.at(6.5)}
	if variant == "restart-too-early" {
		restart.Start = r.at(0.05)
	}
	r.req(6.6, "list", "example.org", "widgets", "", "", 200)
	r.req(6.6, "update", "coordination.k8s.io", "leases", "", "steady", 200)
	cmUID := "uid-c1"
	if variant == "recreate" {
		r.req(6.7, "delete", "", "configmaps", "", "w1-data", 200)
		r.cm(6.75, "DELETED", "w1-data", configMap("w1-data", cmUID, true, 2))
		cmUID = "uid-c3"
		r.req(6.8, "create", "", "configmaps", "", "", 201)
		r.cm(6.85, "ADDED", "w1-data", configMap("w1-data", cmUID, true, 2))
	}
	// The quiet window, 9s-12s: Lease renewals only.
	for s := 9.0; s < 16; s += 2 {
		r.req(s, "update", "coordination.k8s.io", "leases", "", "steady", 200)
	}
	if variant == "hot-loop" {
		for s := 8.0; s < 16; s += 0.2 {
			r.req(s, "patch", "example.org", "widgets", "status", "w1", 200)
		}
	}
	// Deleted at 13s.
	obs := int64(2)
	if variant == "never-ready" {
		obs = 1
	}
	r.widget(13.0, "MODIFIED", widget(2, obs, "True", true, fin))
	if variant == "refinalize" {
		r.req(13.05, "patch", "example.org", "widgets", "", "w1", 422)
		r.reqs[len(r.reqs)-1].Message = `Widget.example.org "w1" is invalid: metadata.finalizers: Forbidden: ` + FinalizerRefused + `, found new finalizers [example.org/other]`
	}
	if variant != "stuck-finalizer" {
		r.req(13.1, "delete", "", "configmaps", "", "w1-data", 200)
		r.cm(13.2, "DELETED", "w1-data", configMap("w1-data", cmUID, true, 2))
		r.req(13.3, "patch", "example.org", "widgets", "", "w1", 200)
		r.widget(13.3, "DELETED", widget(2, obs, "True", true))
	}

	phase := func(what string, since float64, objects ...string) SettlePhase {
		return SettlePhase{What: what, Since: r.at(since), Within: "2s", Window: "1s", Objects: objects}
	}
	w1 := SteadyKey(steadyWidgets, "ns", "w1")
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	e := &evidence.Evidence{
		Format: evidence.Format, Spec: "steadystate constructed " + variant, Start: r.t0, End: r.at(16),
		Histories: map[string][]oracle.EventRecord{steadyWidgets: r.widgets, steadyCMs: r.cms},
		Proxies:   map[string]evidence.ProxyLog{"steady-0": {Requests: r.reqs}},
		Faults:    []chaos.Injection{restart},
		Facts: map[string]string{
			FactSteadyHistories.Name: steadyWidgets + "," + steadyCMs,
			FactSteadyObjects.Name:   w1,
			FactSteadySettle.Name:    js([]SettlePhase{phase("the objects were applied", 0.1, w1), phase("patch Widget/w1 {\"spec\":{\"size\":2}}", 3.0, w1)}),
			FactSteadyRecover.Name:   js([]SettlePhase{phase("the controller's restart", 6.5, w1)}),
			FactSteadyQuiet.Name:     js(QuietWindow{From: r.at(9), To: r.at(12)}),
			FactSteadyDeleted.Name:   js(Deletion{Applied: r.at(0.1), At: r.at(13), Within: "2s"}),
			FactSteadyShared.Name:    "Secret",
		},
	}
	want := map[string]verdict.Outcome{
		catalog.SteadyRestarted.ID: verdict.Held,
		catalog.SteadySettles.ID:   verdict.Held, catalog.SteadyRecovers.ID: verdict.Held,
		catalog.SteadyQuiescent.ID: verdict.Held, catalog.SteadyLeavesNothing.ID: verdict.Held,
		catalog.SteadySameEndState.ID: verdict.Held, catalog.SteadyNoChurn.ID: verdict.Held, catalog.SteadyNoFinalizer.ID: verdict.Held,
	}
	switch variant {
	case "hot-loop":
		want[catalog.SteadyQuiescent.ID] = verdict.Broken
	case "never-ready":
		want[catalog.SteadySettles.ID], want[catalog.SteadyRecovers.ID] = verdict.Broken, verdict.Broken
		want[catalog.SteadySameEndState.ID] = verdict.Broken
	case "restart-too-early":
		want[catalog.SteadyRestarted.ID] = verdict.Broken
	case "stuck-finalizer":
		want[catalog.SteadyLeavesNothing.ID] = verdict.Broken
	case "orphan":
		// The ConfigMap it made without an owner is its end state's too.
		want[catalog.SteadyLeavesNothing.ID], want[catalog.SteadyNoChurn.ID] = verdict.Broken, verdict.Broken
		want[catalog.SteadySameEndState.ID] = verdict.Broken
	case "recreate":
		want[catalog.SteadyNoChurn.ID] = verdict.Broken
	case "refinalize":
		want[catalog.SteadyNoFinalizer.ID] = verdict.Broken
	}
	for _, p := range []verdict.Property{catalog.SteadyRestarted, catalog.SteadySettles, catalog.SteadyRecovers, catalog.SteadyQuiescent, catalog.SteadyLeavesNothing, catalog.SteadySameEndState, catalog.SteadyNoChurn, catalog.SteadyNoFinalizer} {
		e.Records = append(e.Records, verdict.Record{Property: p, Outcome: want[p.ID]})
	}
	return e
}

var steadyVariants = []string{"correct", "hot-loop", "never-ready", "stuck-finalizer", "orphan", "restart-too-early", "recreate", "refinalize"}

// TestSteadyStateJudges: each constructed run gets the verdicts its
// controller deserves, and a broken one says what broke: the hot loop's
// writes, the objects not ready, what was left behind and why.
func TestSteadyStateJudges(t *testing.T) {
	wantReason := map[string]map[string]string{
		"hot-loop":          {catalog.SteadyQuiescent.ID: "patch widgets/status ns/w1 ×15"},
		"never-ready":       {catalog.SteadySettles.ID: `after patch Widget/w1 {"spec":{"size":2}}`, catalog.SteadyRecovers.ID: "Widget steady/widgets.example.org:ns/w1 is not ready (InProgress"},
		"stuck-finalizer":   {catalog.SteadyLeavesNothing.ID: "2 are still there: ConfigMap steady/configmaps:ns/w1-data (applied or owned) not deleted; Widget steady/widgets.example.org:ns/w1 (applied or owned) deleting, finalizers [example.org/cleanup] not released"},
		"restart-too-early": {catalog.SteadyRestarted.ID: "before the controller's first write was answered (patch widgets at 00:00:00.210)"},
		"orphan": {
			catalog.SteadyLeavesNothing.ID: "ConfigMap steady/configmaps:ns/w1-cache (created by the controller at 00:00:00.410) not deleted",
			catalog.SteadyNoChurn.ID:       "it created 2 configmaps, the reference run 1",
			catalog.SteadySameEndState.ID:  "ConfigMap/w1-cache: 0 objects in the reference, 1 after the faults",
		},
		"recreate":   {catalog.SteadyNoChurn.ID: "it deleted Widget/w1 > ConfigMap/w1-data (steady/configmaps:ns/w1-data at 00:00:06.700), which the reference run keeps (deleting 0 of it); it created 2 configmaps, the reference run 1"},
		"refinalize": {catalog.SteadyNoFinalizer.ID: `the API server refused patch widgets/w1 at 00:00:13.050: Widget.example.org "w1" is invalid`},
	}
	wantReason["never-ready"][catalog.SteadySameEndState.ID] = `in 2 fields: Widget/w1 status.observedGeneration: 2 in the reference, 1 after the faults; Widget/w1 > ConfigMap/w1-data data.size: "2" in the reference, "1" after the faults`
	for _, v := range steadyVariants {
		e := constructSteady(v)
		for _, rec := range e.Records {
			got := oracle.Judge(e.Start, rec.Property, Offline[rec.ID](e))
			if got.Outcome != rec.Outcome {
				t.Errorf("%s: %s %s (%s), want %s", v, rec.ID, got.Outcome, got.Reason, rec.Outcome)
			}
			if w := wantReason[v][rec.ID]; w != "" && !strings.Contains(got.Reason, w) {
				t.Errorf("%s: %s reason %q does not say %q", v, rec.ID, got.Reason, w)
			}
		}
		if *writeSteady {
			b, err := json.MarshalIndent(e, "", " ")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join("testdata", "steadystate-"+v+"-constructed.json"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestSteadyStateMissingEvidenceIsNotEvaluated: a judge without the facts,
// histories or proxy logs it reads, or with evidence that ends before its
// bound, leaves its property not evaluated, naming what is missing.
func TestSteadyStateMissingEvidenceIsNotEvaluated(t *testing.T) {
	for _, tc := range []struct {
		name, id, want string
		change         func(e *evidence.Evidence)
	}{
		{"no phases", catalog.SteadySettles.ID, `fact "reconcile/settle"`, func(e *evidence.Evidence) { delete(e.Facts, FactSteadySettle.Name) }},
		{"no history", catalog.SteadyRecovers.ID, `history "steady/configmaps"`, func(e *evidence.Evidence) { delete(e.Histories, steadyCMs) }},
		{"no proxy log", catalog.SteadyQuiescent.ID, "proxy logs", func(e *evidence.Evidence) { e.Proxies = nil }},
		{"ends in the window", catalog.SteadyQuiescent.ID, "ends before the quiet window", func(e *evidence.Evidence) { e.End = e.Start.Add(10 * time.Second) }},
		{"ends before settling", catalog.SteadySettles.ID, "the evidence ends", func(e *evidence.Evidence) { e.End = e.Start.Add(3500 * time.Millisecond) }},
		{"create of an unrecorded resource", catalog.SteadyLeavesNothing.ID, "does not name as never stored: secrets", func(e *evidence.Evidence) {
			p := e.Proxies["steady-0"]
			p.Requests = append(p.Requests, proxy.Request{RequestInfo: proxy.RequestInfo{Verb: "create", Resource: "secrets", Namespace: "ns"}, Code: 201, Start: e.Start.Add(time.Second)})
			e.Proxies["steady-0"] = p
		}},
		{"no deletion", catalog.SteadyLeavesNothing.ID, `fact "reconcile/deleted"`, func(e *evidence.Evidence) { delete(e.Facts, FactSteadyDeleted.Name) }},
		{"no reference", catalog.SteadySameEndState.ID, `fact "reconcile/references"`, func(e *evidence.Evidence) { delete(e.Facts, FactSteadyReferences.Name) }},
		{"no reference for churn", catalog.SteadyNoChurn.ID, `fact "reconcile/references"`, func(e *evidence.Evidence) { delete(e.Facts, FactSteadyReferences.Name) }},
		{"no end mark", catalog.SteadySameEndState.ID, `fact "reconcile/end"`, func(e *evidence.Evidence) { delete(e.Facts, FactSteadyEnd.Name) }},
		{"no proxy log for churn", catalog.SteadyNoChurn.ID, "proxy logs", func(e *evidence.Evidence) { e.Proxies = nil }},
		{"no proxy log for finalizers", catalog.SteadyNoFinalizer.ID, "proxy logs", func(e *evidence.Evidence) { e.Proxies = nil }},
		{"no fault", catalog.SteadyNoChurn.ID, "no fault was injected", func(e *evidence.Evidence) { e.Faults = nil }},
		{"references never settled", catalog.SteadySameEndState.ID, `never settled, so there is no end state to compare with (the subject or its set-up is broken): "steadystate reference 1": Widget steady/widgets.example.org:steady-ref1/w1 is not ready`, func(e *evidence.Evidence) {
			refs := steadyReferences()
			for _, r := range refs {
				r.NotReady = "Widget steady/widgets.example.org:" + r.Namespace + "/w1 is not ready (InProgress)"
			}
			FactSteadyReferences.Put(e, refs)
		}},
		{"an ignore path that resolves nowhere", catalog.SteadySameEndState.ID, `capabilities.reconciledObjects.ignore[1] "status.lastSyncTime" names no field`, func(e *evidence.Evidence) {
			FactSteadyIgnore.Put(e, []string{"status.message", "status.lastSyncTime"})
		}},
		{"a delete of an unrecorded resource", catalog.SteadyNoChurn.ID, "no history recorded: secrets ns/s1", func(e *evidence.Evidence) {
			p := e.Proxies["steady-0"]
			p.Requests = append(p.Requests, proxy.Request{RequestInfo: proxy.RequestInfo{Verb: "delete", Resource: "secrets", Namespace: "ns", Name: "s1"}, Code: 200, Start: e.Start.Add(7 * time.Second)})
			e.Proxies["steady-0"] = p
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := constructSteady("correct")
			tc.change(e)
			p, _ := catalog.Property(tc.id)
			got := oracle.Judge(e.Start, p, Offline[tc.id](e))
			if got.Outcome != verdict.NotEvaluated || !strings.Contains(got.Reason, tc.want) {
				t.Errorf("%s %q, want not evaluated naming %q", got.Outcome, got.Reason, tc.want)
			}
		})
	}
}

// TestReadinessOverride: a kind with an override is ready by its field,
// or by existing; others by kstatus.
func TestReadinessOverride(t *testing.T) {
	e := constructSteady("never-ready")
	e.Facts[FactSteadyReadiness.Name] = `[{"kind":"Widget","path":"status.observedGeneration","value":"2"}]`
	if err := Offline[catalog.SteadySettles.ID](e); err == nil || !strings.Contains(err.Error(), "status.observedGeneration is 1, not 2") {
		t.Errorf("override by a value never reached: %v", err)
	}
	e.Facts[FactSteadyReadiness.Name] = `[{"kind":"Widget","path":"status.observedGeneration","value":"1"}]`
	if err := Offline[catalog.SteadySettles.ID](e); err != nil {
		t.Errorf("override by a value reached: %v", err)
	}
	e.Facts[FactSteadyReadiness.Name] = `[{"kind":"Widget","exists":true}]`
	if err := Offline[catalog.SteadySettles.ID](e); err != nil {
		t.Errorf("override by existence: %v", err)
	}
}

// TestRecordedSteadyRunBreaksWhenAnOwnedObjectStays: the reference
// composite controller's recorded run, as a controller that never
// releases the Managed's provider finalizer would have left it (its
// deletion never completes): leaves-nothing-behind breaks, naming the
// Managed and its finalizer. The recorded run itself holds.
func TestRecordedSteadyRunBreaksWhenAnOwnedObjectStays(t *testing.T) {
	e, err := evidence.Read("testdata/steadystate-correct-settles.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := Offline[catalog.SteadyLeavesNothing.ID](e); err != nil {
		t.Fatalf("the recorded run: %v", err)
	}
	const managed = "steady/manageds.reference.steadystate.dev"
	var kept []oracle.EventRecord
	for _, r := range e.Histories[managed] {
		if r.Type != "DELETED" {
			kept = append(kept, r)
		}
	}
	if len(kept) == len(e.Histories[managed]) {
		t.Fatal("no deleted Managed to derive from")
	}
	e.Histories[managed] = kept
	e.End = e.End.Add(31 * time.Second) // the run would have waited out T
	err = Offline[catalog.SteadyLeavesNothing.ID](e)
	if got := oracle.Judge(e.Start, catalog.SteadyLeavesNothing, err); got.Outcome != verdict.Broken || !strings.Contains(got.Reason, "Managed steady/manageds.reference.steadystate.dev:") || !strings.Contains(got.Reason, "created by the controller") {
		t.Errorf("%s %q, want broken naming the Managed the controller created", got.Outcome, got.Reason)
	}
}

// TestSameEndStateLearnsWhatVaries: a field that differed between the two
// clean reference runs is masked; with one reference run only it is not,
// and the record says so; the subject's ignore path masks it too.
func TestSameEndStateLearnsWhatVaries(t *testing.T) {
	e := constructSteady("correct")
	if err := Offline[catalog.SteadySameEndState.ID](e); err != nil {
		t.Fatalf("two references: %v", err)
	}
	if b := BoundText(catalog.SteadySameEndState.ID, e); !strings.Contains(b, "2 clean reference runs") || !strings.Contains(b, "learned from them: Widget/w1 status.message (value)") || !strings.Contains(b, "of kinds ConfigMap, Widget") {
		t.Errorf("bound %q", b)
	}
	refs := steadyReferences()[:1]
	FactSteadyReferences.Put(e, refs)
	err := Offline[catalog.SteadySameEndState.ID](e)
	if got := oracle.Judge(e.Start, catalog.SteadySameEndState, err); got.Outcome != verdict.Broken || !strings.Contains(got.Reason, `Widget/w1 status.message: "took 95ms" in the reference, "took 100ms" after the faults`) {
		t.Errorf("one reference: %s %q", got.Outcome, got.Reason)
	}
	if b := BoundText(catalog.SteadySameEndState.ID, e); !strings.Contains(b, "one clean reference run") || !strings.Contains(b, "no second clean run") {
		t.Errorf("bound with one reference %q", b)
	}
	FactSteadyIgnore.Put(e, []string{"status.message"})
	if err := Offline[catalog.SteadySameEndState.ID](e); err != nil {
		t.Errorf("ignored: %v", err)
	}
}

// TestEndStatesMatchGeneratedNames: owned objects of two runs match by
// kind, owner chain and name with a generated suffix masked, their uids,
// timestamps and namespace masked in every value; a changed field is
// named with both values, and a missing object by its count.
func TestEndStatesMatchGeneratedNames(t *testing.T) {
	run := func(ns, suffix, uid string, port int64, slices int) *EndState {
		svc := map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "web", "namespace": ns, "uid": uid + "-svc"},
			"status": map[string]any{"loadBalancer": map[string]any{}}}
		es := &EndState{Spec: ns, Namespace: ns, Roots: []string{"steady/services:" + ns + "/web"}, Objects: map[string]map[string]any{"steady/services:" + ns + "/web": svc}}
		for i := range slices {
			name := fmt.Sprintf("web-%s%d", suffix, i)
			es.Objects["steady/endpointslices.discovery.k8s.io:"+ns+"/"+name] = map[string]any{
				"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "addressType": "IPv4",
				"metadata": map[string]any{"name": name, "generateName": "web-", "namespace": ns, "uid": fmt.Sprintf("%s-%d", uid, i),
					"labels":          map[string]any{"kubernetes.io/service-name": "web", "owner-ns": ns},
					"annotations":     map[string]any{"endpoints.kubernetes.io/last-change-trigger-time": "2026-01-0" + suffix[:1] + "T00:00:00Z"},
					"ownerReferences": []any{map[string]any{"apiVersion": "v1", "kind": "Service", "name": "web", "uid": uid + "-svc", "controller": true}}},
				"ports": []any{map[string]any{"name": "http", "port": port}},
			}
		}
		return es
	}
	ref := run("steady-aaaaa", "1abcd", "11111111-1111-1111-1111-111111111111", 8080, 1)
	same := run("steady-bbbbb", "2wxyz", "22222222-2222-2222-2222-222222222222", 8080, 1)
	if d := diffEnds(ref.compared(), same.compared(), nil); len(d) != 0 {
		t.Errorf("the same end state in another run differs: %v", d)
	}
	// An endpoint's node is its pod's, the scheduler's choice (the zoo's
	// EndpointSlice controller: a pod deleted under the refused writes was
	// made again on the other simulated node); whether it is ready is not.
	endpoint := func(es *EndState, node string, ready bool) {
		for k, o := range es.Objects {
			if o["kind"] == "EndpointSlice" {
				es.Objects[k]["endpoints"] = []any{map[string]any{"nodeName": node, "zone": node + "-zone", "conditions": map[string]any{"ready": ready}}}
			}
		}
	}
	endpoint(ref, "kwok-node-1", true)
	endpoint(same, "kwok-node-0", true)
	if d := diffEnds(ref.compared(), same.compared(), nil); len(d) != 0 {
		t.Errorf("an endpoint on another node differs: %v", d)
	}
	endpoint(same, "kwok-node-0", false)
	if d := diffEnds(ref.compared(), same.compared(), nil); len(d) != 1 || !strings.Contains(d[0].String(), "endpoints[0].conditions.ready: true in the reference, false after the faults") {
		t.Errorf("an endpoint not ready: %v", d)
	}
	for _, es := range []*EndState{ref, same} {
		for k := range es.Objects {
			delete(es.Objects[k], "endpoints")
		}
	}
	other := run("steady-bbbbb", "2wxyz", "u2", 80, 1)
	d := diffEnds(ref.compared(), other.compared(), nil)
	if len(d) != 1 || d[0].String() != "Service/web > EndpointSlice/web-* ports[0].port: 8080 in the reference, 80 after the faults" {
		t.Errorf("a changed port: %v", d)
	}
	two := run("steady-bbbbb", "2wxyz", "u2", 8080, 2)
	d = diffEnds(ref.compared(), two.compared(), nil)
	if len(d) != 1 || d[0].String() != "Service/web > EndpointSlice/web-*: 1 objects in the reference, 2 after the faults" {
		t.Errorf("a second slice: %v", d)
	}
}

// TestTheConflictMarkIsNotCompared: the mark the fault proxy sets and
// takes off again around a refused write's real conflict (a label, or an
// annotation), copied onto another object by its controller and left
// there, is the harness's, not the controller's state; any other label
// or annotation is compared.
func TestTheConflictMarkIsNotCompared(t *testing.T) {
	run := func(ns string, labels, annotations map[string]any) *EndState {
		md := map[string]any{"name": "web", "namespace": ns, "uid": ns + "-uid"}
		if labels != nil {
			md["labels"] = labels
		}
		if annotations != nil {
			md["annotations"] = annotations
		}
		return &EndState{Spec: ns, Namespace: ns, Objects: map[string]map[string]any{
			"steady/configmaps:" + ns + "/web": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": md, "data": map[string]any{"k": "v"}},
		}}
	}
	ref := run("steady-aaaaa", map[string]any{"app": "web"}, map[string]any{"team": "a"})
	for _, tc := range []struct {
		name string
		got  *EndState
		want string
	}{
		{"the mark as a label", run("steady-bbbbb", map[string]any{"app": "web", proxy.ConflictMark: "3"}, map[string]any{"team": "a"}), ""},
		{"the mark as an annotation", run("steady-bbbbb", map[string]any{"app": "web"}, map[string]any{"team": "a", proxy.ConflictMark: "3"}), ""},
		{"another label", run("steady-bbbbb", map[string]any{"app": "api"}, map[string]any{"team": "a"}), `ConfigMap/web metadata.labels.app: "web" in the reference, "api" after the faults`},
		{"another annotation", run("steady-bbbbb", map[string]any{"app": "web"}, map[string]any{"team": "b"}), `ConfigMap/web metadata.annotations.team: "a" in the reference, "b" after the faults`},
	} {
		d := diffEnds(ref.compared(), tc.got.compared(), nil)
		if got := fmt.Sprint(d); (tc.want == "" && len(d) != 0) || (tc.want != "" && (len(d) != 1 || d[0].String() != tc.want)) {
			t.Errorf("%s: %s, want %q", tc.name, got, tc.want)
		}
	}
	bare := run("steady-aaaaa", nil, nil)
	if d := diffEnds(bare.compared(), run("steady-bbbbb", map[string]any{proxy.ConflictMark: "1"}, map[string]any{proxy.ConflictMark: "2"}).compared(), nil); len(d) != 0 {
		t.Errorf("the mark alone, where the reference has no labels nor annotations: %v", d)
	}
}

// TestRecordedRestartBreaksWhenTheEndStateOrTheObjectsChurn: the
// EndpointSlice controller's recorded restart run (held, against its two
// clean runs) breaks same-end-state when its slice ends with another
// address type, and no-churn when the restarted controller deleted the
// slice the clean runs keep and made another.
func TestRecordedRestartBreaksWhenTheEndStateOrTheObjectsChurn(t *testing.T) {
	const file, slices = "testdata/steadystate-endpointslice-restart.json", "steady/endpointslices.discovery.k8s.io"
	e, err := evidence.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{catalog.SteadySameEndState.ID, catalog.SteadyNoChurn.ID} {
		if err := Offline[id](e); err != nil {
			t.Fatalf("the recorded run: %s: %v", id, err)
		}
	}
	e.Histories[slices] = append([]oracle.EventRecord(nil), e.Histories[slices]...) // a new slice: rebuilt again
	for _, r := range e.Histories[slices] {
		r.Object["addressType"] = "IPv6"
	}
	err = Offline[catalog.SteadySameEndState.ID](e)
	if got := oracle.Judge(e.Start, catalog.SteadySameEndState, err); got.Outcome != verdict.Broken || !strings.Contains(got.Reason, `Service/web > EndpointSlice/web-* addressType: "IPv4" in the reference, "IPv6" after the faults`) {
		t.Errorf("another address type: %s %q", got.Outcome, got.Reason)
	}

	e, _ = evidence.Read(file)
	added := e.Histories[slices][0]
	at := e.Faults[0].End.Add(time.Millisecond)
	p := e.Proxies["endpointslice-0"]
	ns, name := added.Object["metadata"].(map[string]any)["namespace"].(string), added.Object["metadata"].(map[string]any)["name"].(string)
	p.Requests = append(p.Requests,
		proxy.Request{RequestInfo: proxy.RequestInfo{Verb: "delete", Group: "discovery.k8s.io", Resource: "endpointslices", Namespace: ns, Name: name}, Code: 200, Start: at, End: at},
		proxy.Request{RequestInfo: proxy.RequestInfo{Verb: "create", Group: "discovery.k8s.io", Resource: "endpointslices", Namespace: ns}, Code: 201, Start: at.Add(time.Millisecond), End: at.Add(time.Millisecond)})
	e.Proxies["endpointslice-0"] = p
	err = Offline[catalog.SteadyNoChurn.ID](e)
	if got := oracle.Judge(e.Start, catalog.SteadyNoChurn, err); got.Outcome != verdict.Broken || !strings.Contains(got.Reason, "it deleted Service/web > EndpointSlice/web-* (") || !strings.Contains(got.Reason, "it created 2 endpointslices.discovery.k8s.io, the reference run 1") {
		t.Errorf("a slice deleted and made again: %s %q", got.Outcome, got.Reason)
	}
}

// TestAnotherNamespacesWritesAreNotTheRuns: the quiet window and the
// restart's first write count the controller's writes of the run, in its
// namespace or of a cluster-scoped object, as the end state does. A
// controller that watches every namespace (the garbage collector) writes
// in another when it cleans up what an earlier spec left there: that
// write in the quiet window broke quiescent, and one before a restart
// that came before the controller's first write of the run held the
// restart's premise. The same write in the run's namespace, or of a
// cluster-scoped object, still counts.
func TestAnotherNamespacesWritesAreNotTheRuns(t *testing.T) {
	with := func(variant string, s float64, ns string) *evidence.Evidence {
		e := constructSteady(variant)
		r := &steadyRun{t0: e.Start}
		p := e.Proxies["steady-0"]
		p.Requests = append(p.Requests, proxy.Request{ID: 999, Replica: "steady-0", RequestInfo: proxy.RequestInfo{Verb: "delete", Group: "apps", Resource: "replicasets", Namespace: ns, Name: "api-7d9f"}, Code: 200, Start: r.at(s), End: r.at(s + 0.01)})
		e.Proxies["steady-0"] = p
		return e
	}
	for _, tc := range []struct {
		name, variant string
		at            float64
		ns            string
		p             verdict.Property
		want          verdict.Outcome
		reason        string
	}{
		{"a delete in another namespace in the quiet window", "correct", 10, "steady-earlier", catalog.SteadyQuiescent, verdict.Held, ""},
		{"the delete in the run's namespace", "correct", 10, "ns", catalog.SteadyQuiescent, verdict.Broken, "delete replicasets ns/api-7d9f ×1"},
		{"a cluster-scoped write", "correct", 10, "", catalog.SteadyQuiescent, verdict.Broken, "delete replicasets /api-7d9f ×1"},
		{"a delete in another namespace before a restart too early", "restart-too-early", 0.01, "steady-earlier", catalog.SteadyRestarted, verdict.Broken, "before the controller's first write was answered (patch widgets at 00:00:00.210)"},
		{"the delete in the run's namespace before it", "restart-too-early", 0.01, "ns", catalog.SteadyRestarted, verdict.Held, ""},
	} {
		e := with(tc.variant, tc.at, tc.ns)
		got := oracle.Judge(e.Start, tc.p, Offline[tc.p.ID](e))
		if got.Outcome != tc.want || !strings.Contains(got.Reason, tc.reason) {
			t.Errorf("%s: %s %s %q, want %s with %q", tc.name, tc.p.ID, got.Outcome, got.Reason, tc.want, tc.reason)
		}
	}
	w := func(info proxy.RequestInfo) proxy.Request { return proxy.Request{RequestInfo: info} }
	if !RunWrite(w(proxy.RequestInfo{Verb: "create", Resource: "configmaps", Namespace: "ns"}), "ns") || RunWrite(w(proxy.RequestInfo{Verb: "create", Resource: "configmaps", Namespace: "other"}), "ns") ||
		!RunWrite(w(proxy.RequestInfo{Verb: "update", Resource: "nodes", Name: "n1"}), "ns") || RunWrite(w(proxy.RequestInfo{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Namespace: "ns"}), "ns") {
		t.Error("RunWrite: a write of the run is one in its namespace or of a cluster-scoped object, Lease and Event writes aside")
	}
}

// TestRecordedEndpointOnAnotherNodeIsTheSameEndState re-judges the zoo's
// EndpointSlice controller through the refused-writes spec (CI's zoo
// slice): its slice's endpoint ended on kwok-node-0 where the reference
// run's was on kwok-node-1, the node of the pod behind it, which the
// scheduler chose. Judged with a pod's node masked but not an
// endpoint's, same-end-state broke on that field alone; an endpoint's
// node is masked too, and it holds. The address type changed still
// breaks it.
func TestRecordedEndpointOnAnotherNodeIsTheSameEndState(t *testing.T) {
	read := func() *evidence.Evidence {
		return readEvidence(t, filepath.Join("endpointslice", "steadystate-endpointslice-writes-refused-endpoint-node.json"))
	}
	if got := judged(t, catalog.SteadySameEndState.ID, read()); got.Outcome != verdict.Held {
		t.Errorf("as recorded: %s %q, want held", got.Outcome, got.Reason)
	}
	e := read()
	for _, r := range e.Histories["steady/endpointslices.discovery.k8s.io"] {
		r.Object["addressType"] = "IPv6"
	}
	if got := judged(t, catalog.SteadySameEndState.ID, e); got.Outcome != verdict.Broken || !strings.Contains(got.Reason, `addressType: "IPv4" in the reference, "IPv6" after the faults`) {
		t.Errorf("another address type: %s %q, want broken on it", got.Outcome, got.Reason)
	}
}

// TestACronJobsJobsAreMatchedAcrossMinutes re-judges the zoo's CronJob
// controller (Kubernetes v1.36.3) recorded by `steadystate explore
// --subject fixtures/zoo/cronjob.yaml --replay
// suites/explore/testdata/cronjob-history.yaml`: suspended right after
// its second scheduled Job, whose completion's cleanup of the first was
// answered 500 and never tried again, it ended with two finished Jobs
// where its history limit keeps one, as the fault-free reference runs,
// suspended a minute earlier, did. A CronJob names each Job after its
// scheduled minute, so the reference runs' Jobs have other names: judged
// by name, every Job of the run was "0 in the reference, 1 after the
// faults", and a run without any fault broke same-end-state as well; the
// minute is masked, and the count is compared. Likewise the Job of a
// minute the reference runs did not reach is the clock's, not churn
// (no-churn broke on it); a minute's Job made twice still is.
func TestACronJobsJobsAreMatchedAcrossMinutes(t *testing.T) {
	read := func() *evidence.Evidence {
		return readEvidence(t, filepath.Join("cronjob", "explore-cronjob-steady-history.json"))
	}
	got := judged(t, catalog.SteadySameEndState.ID, read())
	if want := "CronJob/tick > Job/tick-*: 1 objects in the reference, 2 after the faults"; got.Outcome != verdict.Broken || !strings.Contains(got.Reason, want) {
		t.Errorf("as recorded: %s %q, want broken on %q", got.Outcome, got.Reason, want)
	}
	if got := judged(t, catalog.SteadyNoChurn.ID, read()); got.Outcome != verdict.Held {
		t.Errorf("no-churn as recorded: %s %q, want held", got.Outcome, got.Reason)
	}
	// Had the old Job gone, the run's one Job, of another minute than
	// the references', is theirs.
	e := read()
	for h, recs := range e.Histories {
		var kept []oracle.EventRecord
		for _, r := range recs {
			if !strings.HasPrefix(r.Key, "explore-mkmc7/tick-29928989") {
				kept = append(kept, r)
			}
		}
		e.Histories[h] = kept
	}
	if got := judged(t, catalog.SteadySameEndState.ID, e); got.Outcome != verdict.Held {
		t.Errorf("one Job of another minute: %s %q, want held", got.Outcome, got.Reason)
	}
	// A minute's Job made again.
	e = read()
	p := e.Proxies["cronjob-0"]
	for _, r := range p.Requests {
		if r.Verb == "create" && r.Resource == "jobs" {
			again := r
			again.ID, again.Start, again.End = 1<<40, r.Start.Add(time.Second), r.End.Add(time.Second)
			p.Requests = append(p.Requests, again)
			break
		}
	}
	e.Proxies["cronjob-0"] = p
	if got := judged(t, catalog.SteadyNoChurn.ID, e); got.Outcome != verdict.Broken || !strings.Contains(got.Reason, "it created 3 jobs.batch") {
		t.Errorf("a Job made again: %s %q, want broken", got.Outcome, got.Reason)
	}
}

// TestRecordedJobNotAdoptedAfterARestart: the zoo's CronJob controller
// (Kubernetes v1.36.3), restarted after it created the minute's Job and
// before it recorded it in the CronJob's status, never records it: its
// retried create is answered 409 and its get of the existing Job asks
// the empty namespace (404), a known upstream bug. The recorded restart
// spec (make zoo, cronjob run 2) breaks same-end-state on the missing
// status.lastScheduleTime; with the status written, it holds.
func TestRecordedJobNotAdoptedAfterARestart(t *testing.T) {
	read := func() *evidence.Evidence {
		return readEvidence(t, filepath.Join("cronjob", "steadystate-cronjob-restart-job-not-adopted.json"))
	}
	got := judged(t, catalog.SteadySameEndState.ID, read())
	if want := `CronJob/tick status.lastScheduleTime: "<time>" in the reference, absent after the faults`; got.Outcome != verdict.Broken || !strings.Contains(got.Reason, want) {
		t.Errorf("as recorded: %s %q, want broken on %q", got.Outcome, got.Reason, want)
	}
	e := read()
	recs := e.Histories["steady/cronjobs.batch"]
	last := recs[len(recs)-1].Object
	st, _ := last["status"].(map[string]any)
	if st == nil {
		t.Fatal("the recorded CronJob has no status")
	}
	st["lastScheduleTime"] = "2026-11-27T20:24:00Z"
	if got := judged(t, catalog.SteadySameEndState.ID, e); got.Outcome != verdict.Held {
		t.Errorf("with the Job's minute in the status: %s %q, want held", got.Outcome, got.Reason)
	}
}

// TestClusterScopedObjectsMatchAcrossRuns: a cluster-scoped object (key
// namespace "") named after its run's namespace, and the namespaced
// objects that name it, match another run's by identity, the namespace
// masked in the name as in the values; a difference in its status, or an
// owned object naming another run's issuer, is named. The run's
// namespace is that of the first namespaced object when the end mark
// does not record it (the cluster-scoped one listed first).
func TestClusterScopedObjectsMatchAcrossRuns(t *testing.T) {
	const issuers, certs, requests = "steady/clusterissuers.cert-manager.io", "steady/certificates.cert-manager.io", "steady/certificaterequests.cert-manager.io"
	run := func(ns, uid, ready, issuer string) *EndState {
		ready = strings.ToUpper(ready[:1]) + ready[1:]
		ci := map[string]any{"apiVersion": "cert-manager.io/v1", "kind": "ClusterIssuer", "metadata": map[string]any{"name": ns + "-selfsigned", "uid": uid + "-ci"},
			"spec": map[string]any{"selfSigned": map[string]any{}}, "status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": ready}}}}
		cert := map[string]any{"apiVersion": "cert-manager.io/v1", "kind": "Certificate", "metadata": map[string]any{"name": "web", "namespace": ns, "uid": uid + "-cert"},
			"spec": map[string]any{"issuerRef": map[string]any{"kind": "ClusterIssuer", "name": ns + "-selfsigned"}}, "status": map[string]any{"revision": int64(1)}}
		req := map[string]any{"apiVersion": "cert-manager.io/v1", "kind": "CertificateRequest",
			"metadata": map[string]any{"name": "web-1", "namespace": ns, "uid": uid + "-req",
				"ownerReferences": []any{map[string]any{"apiVersion": "cert-manager.io/v1", "kind": "Certificate", "name": "web", "uid": uid + "-cert", "controller": true}}},
			"spec": map[string]any{"issuerRef": map[string]any{"kind": "ClusterIssuer", "name": issuer + "-selfsigned"}}}
		keys := []string{SteadyKey(issuers, "", ns+"-selfsigned"), SteadyKey(certs, ns, "web")}
		if got := keysNamespace(keys); got != ns {
			t.Errorf("the run's namespace from %v is %q, want %q", keys, got, ns)
		}
		return &EndState{Spec: ns, Namespace: keysNamespace(keys), Roots: keys, Objects: map[string]map[string]any{
			keys[0]: ci, keys[1]: cert, SteadyKey(requests, ns, "web-1"): req}}
	}
	ref := run("steady-aaaaa", "u1", "true", "steady-aaaaa")
	if ids := Identities(oracle.State{SteadyKey(issuers, "", "steady-aaaaa-selfsigned"): {Object: ref.Objects[ref.Roots[0]]}}, "steady-aaaaa"); ids[SteadyKey(issuers, "", "steady-aaaaa-selfsigned")] != "ClusterIssuer/{{.Namespace}}-selfsigned" {
		t.Errorf("the cluster-scoped object's identity: %v", ids)
	}
	if d := diffEnds(ref.compared(), run("steady-bbbbb", "u2", "true", "steady-bbbbb").compared(), nil); len(d) != 0 {
		t.Errorf("the same end state in another run differs: %v", d)
	}
	d := diffEnds(ref.compared(), run("steady-bbbbb", "u2", "false", "steady-bbbbb").compared(), nil)
	if len(d) != 1 || d[0].String() != `ClusterIssuer/{{.Namespace}}-selfsigned status.conditions[Ready].status: "True" in the reference, "False" after the faults` {
		t.Errorf("the cluster-scoped object not ready: %v", d)
	}
	d = diffEnds(ref.compared(), run("steady-bbbbb", "u2", "true", "steady-ccccc").compared(), nil)
	if len(d) != 1 || d[0].String() != `Certificate/web > CertificateRequest/web-1 spec.issuerRef.name: "{{.Namespace}}-selfsigned" in the reference, "steady-ccccc-selfsigned" after the faults` {
		t.Errorf("a request naming another run's issuer: %v", d)
	}
}

// TestAnotherRunsClusterScopedObjectIsNotTheRuns: of the resource of the
// run's cluster-scoped objects, a write of another run's object (its
// name carries another namespace) is not the run's, one of its own is;
// a write of any other cluster-scoped resource still is. Judged on
// quiescence, a write of another run's ClusterIssuer in the quiet window
// holds, one of the run's own breaks it.
func TestAnotherRunsClusterScopedObjectIsNotTheRuns(t *testing.T) {
	issuer := func(name string) proxy.RequestInfo {
		return proxy.RequestInfo{Verb: "update", Group: "cert-manager.io", Resource: "clusterissuers", Subresource: "status", Name: name}
	}
	const named = "clusterissuers.cert-manager.io"
	for _, tc := range []struct {
		req  proxy.Request
		want bool
	}{
		{proxy.Request{RequestInfo: issuer("ns-selfsigned")}, true},
		{proxy.Request{RequestInfo: issuer("steady-other-selfsigned")}, false},
		{proxy.Request{RequestInfo: issuer("nsx-selfsigned")}, false},
		{proxy.Request{RequestInfo: proxy.RequestInfo{Verb: "update", Resource: "nodes", Name: "n1"}}, true},
		// A create is named by its answer: the run's own issuer, and a
		// record kept for the run in another namespace.
		{proxy.Request{RequestInfo: proxy.RequestInfo{Verb: "create", Group: "cert-manager.io", Resource: "clusterissuers"}, Code: 201, Object: &proxy.ObjectRef{Name: "ns-selfsigned", UID: "u1"}}, true},
		{proxy.Request{RequestInfo: proxy.RequestInfo{Verb: "create", Group: "cert-manager.io", Resource: "clusterissuers"}, Code: 201, Object: &proxy.ObjectRef{Name: "steady-other-selfsigned", UID: "u2"}}, false},
		{proxy.Request{RequestInfo: proxy.RequestInfo{Verb: "create", Resource: "configmaps", Namespace: "default"}, Code: 201, Object: &proxy.ObjectRef{Name: "stack-ns-app", UID: "u3"}}, true},
		{proxy.Request{RequestInfo: proxy.RequestInfo{Verb: "create", Resource: "configmaps", Namespace: "default"}, Code: 201, Object: &proxy.ObjectRef{Name: "stack-other-app", UID: "u4"}}, false},
	} {
		if got := RunWrite(tc.req, "ns", named); got != tc.want {
			t.Errorf("RunWrite(%s %s %s) = %v, want %v", tc.req.Verb, tc.req.GroupResource(), tc.req.ObjectName(), got, tc.want)
		}
	}
	with := func(name string) *evidence.Evidence {
		e := constructSteady("correct")
		e.Facts[FactSteadyObjects.Name] += "," + SteadyKey(SteadyHistory(named), "", "ns-selfsigned")
		r := &steadyRun{t0: e.Start}
		p := e.Proxies["steady-0"]
		p.Requests = append(p.Requests, proxy.Request{ID: 999, Replica: "steady-0", RequestInfo: issuer(name), Code: 200, Start: r.at(10), End: r.at(10.01)})
		e.Proxies["steady-0"] = p
		return e
	}
	if err := Offline[catalog.SteadyQuiescent.ID](with("steady-other-selfsigned")); err != nil {
		t.Errorf("another run's ClusterIssuer written in the quiet window: %v", err)
	}
	got := oracle.Judge(time.Time{}, catalog.SteadyQuiescent, Offline[catalog.SteadyQuiescent.ID](with("ns-selfsigned")))
	if got.Outcome != verdict.Broken || !strings.Contains(got.Reason, "update clusterissuers/status /ns-selfsigned ×1") {
		t.Errorf("the run's own ClusterIssuer written in the quiet window: %s %q", got.Outcome, got.Reason)
	}
}

// Settles and recovers say how ready was decided, and name an applied
// custom resource that never had a status and no override: kstatus calls
// it Current once it exists, which the verdict must not pass off as more.
func TestReadinessBoundNamesAStatuslessCustomResource(t *testing.T) {
	e := constructSteady("correct")
	FactSteadyStatusOwed.Put(e, []string{"Widget"})
	const learned = "ready: kstatus Current; after the last change, not before they have a status, as every clean reference run ended with one: Widget"
	for _, id := range []string{catalog.SteadySettles.ID, catalog.SteadyRecovers.ID} {
		if got := BoundText(id, e); got != learned {
			t.Errorf("%s with a status owed: %q", id, got)
		}
	}
	delete(e.Facts, FactSteadyStatusOwed.Name)
	for _, id := range []string{catalog.SteadySettles.ID, catalog.SteadyRecovers.ID} {
		if got := BoundText(id, e); got != "ready: kstatus Current" {
			t.Errorf("%s with a status: %q", id, got)
		}
	}
	e.Histories[steadyWidgets] = slices.Clone(e.Histories[steadyWidgets]) // a new slice: rebuilt again
	for _, rec := range e.Histories[steadyWidgets] {
		delete(rec.Object, "status")
	}
	const named = "never given a status, so ready once they exist (a custom resource kstatus cannot judge; bind readiness.overrides to judge it): Widget/w1"
	if got := BoundText(catalog.SteadySettles.ID, e); !strings.Contains(got, named) {
		t.Errorf("no status: %q does not say %q", got, named)
	}
	if err := Offline[catalog.SteadySettles.ID](e); err != nil {
		t.Errorf("kstatus still calls it Current (the figure says so): %v", err)
	}
	e.Facts[FactSteadyReadiness.Name] = `[{"kind":"Widget","exists":true}]`
	if got := BoundText(catalog.SteadySettles.ID, e); got != "ready: kstatus Current; by the subject's overrides: Widget once it exists" {
		t.Errorf("an override for it: %q", got)
	}
	if customResource("steady/configmaps:ns/a") || customResource("steady/deployments.apps:ns/a") || customResource("steady/ingresses.networking.k8s.io:ns/a") || !customResource("steady/clusters.cluster.x-k8s.io:ns/a") {
		t.Error("customResource: built-in and custom groups told apart wrongly")
	}
}

// TestRecordedHeadAddressIsTheSameEndState re-judges the zoo's KubeRay
// operator (v1.5.0) recorded by `make zoo ZOO_DIR=fixtures/zoo/operators
// ZOO_RUNS=5` (kuberay run 3, the stale-view spec): the RayCluster's
// status.head.podIP and serviceIP name its head pod's address, which the
// simulated nodes gave out as 10.244.0.1 in both clean reference runs
// and as 10.244.0.2 in this one. Judged by value, same-end-state broke on
// those two fields in three of five runs; an address of one of the run's
// pods is masked, as a pod's node is, and it holds. An address no pod of
// the run has (a head gone) still breaks it.
func TestRecordedHeadAddressIsTheSameEndState(t *testing.T) {
	read := func() *evidence.Evidence {
		return readEvidence(t, filepath.Join("kuberay", "steadystate-kuberay-stale-view-head-address.json"))
	}
	if got := judged(t, catalog.SteadySameEndState.ID, read()); got.Outcome != verdict.Held {
		t.Errorf("as recorded: %s %q, want held", got.Outcome, got.Reason)
	}
	e := read()
	for _, r := range e.Histories["steady/rayclusters.ray.io"] {
		if st, ok := r.Object["status"].(map[string]any); ok {
			if head, ok := st["head"].(map[string]any); ok {
				head["podIP"] = "10.244.9.9"
			}
		}
	}
	if got := judged(t, catalog.SteadySameEndState.ID, e); got.Outcome != verdict.Broken || !strings.Contains(got.Reason, `status.head.podIP: "<address of RayCluster/raycluster-kuberay > Pod/raycluster-kuberay-head-*>" in the reference, "10.244.9.9" after the faults`) {
		t.Errorf("an address no pod has: %s %q, want broken on it", got.Outcome, got.Reason)
	}
	// Another pod's address (a worker's): masked as that pod, not the head.
	e = read()
	worker := ""
	for _, r := range e.Histories["steady/pods"] {
		if strings.Contains(r.Key, "worker") {
			if st, ok := r.Object["status"].(map[string]any); ok {
				if ip, _ := st["podIP"].(string); ip != "" {
					worker = ip
				}
			}
		}
	}
	if worker == "" {
		t.Fatal("the recorded run has no worker pod with an address")
	}
	for _, r := range e.Histories["steady/rayclusters.ray.io"] {
		if st, ok := r.Object["status"].(map[string]any); ok {
			if head, ok := st["head"].(map[string]any); ok {
				head["podIP"] = worker
			}
		}
	}
	if got := judged(t, catalog.SteadySameEndState.ID, e); got.Outcome != verdict.Broken || !strings.Contains(got.Reason, `status.head.podIP: "<address of RayCluster/raycluster-kuberay > Pod/raycluster-kuberay-head-*>" in the reference, "<address of RayCluster/raycluster-kuberay > Pod/raycluster-kuberay-`) || !strings.Contains(got.Reason, "worker") {
		t.Errorf("a worker's address: %s %q, want broken naming the worker", got.Outcome, got.Reason)
	}
}

// A pod on its node's network has its node's address: masked as a node's
// whatever order the state is read in, never as the pod; a malformed
// address list is skipped, not a panic.
func TestAddressMasksAreDeterministic(t *testing.T) {
	pod := func(name, ip, host string, list any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": name, "namespace": "ns", "uid": "uid-" + name},
			"status":   map[string]any{"podIP": ip, "hostIP": host, "podIPs": list}}}
	}
	s := oracle.State{
		"a": pod("a", "10.0.0.7", "10.0.0.7", []any{"junk", nil, map[string]any{"ip": "10.0.0.7"}}),
		"b": pod("b", "10.244.0.3", "10.0.0.7", nil),
	}
	for range 50 {
		m := newMasker(s, "ns", Identities(s, "ns"))
		if got := m.value("10.0.0.7"); got != "<a node's address>" {
			t.Fatalf("the host-network pod's address: %q", got)
		}
		if got := m.value("10.244.0.3"); got != "<address of Pod/b>" {
			t.Fatalf("pod b's address: %q", got)
		}
	}
}

// TestRecordedActiveConditionIsTheSubjectsToIgnore re-judges the zoo's
// KEDA operator (v2.18.1) recorded by `make zoo ZOO_DIR=fixtures/zoo/operators
// ZOO_RUNS=5` (keda run 3, the restart spec): the ScaledObject's Active
// condition is set by KEDA's polling loop (every pollingInterval, 30 s
// by default, and at once when the operator starts), so it was Unknown
// at the end of both short clean runs and True after the restart. The
// conditions are compared by type, and the subject may ignore one
// condition by its type; the others are still compared.
func TestRecordedActiveConditionIsTheSubjectsToIgnore(t *testing.T) {
	read := func() *evidence.Evidence {
		return readEvidence(t, filepath.Join("keda", "steadystate-keda-restart-active.json"))
	}
	got := judged(t, catalog.SteadySameEndState.ID, read())
	if got.Outcome != verdict.Broken || !strings.Contains(got.Reason, `ScaledObject/web status.conditions[Active].status: "Unknown" in the reference, "True" after the faults`) {
		t.Errorf("as recorded: %s %q, want broken on the Active condition, by its type", got.Outcome, got.Reason)
	}
	e := read()
	FactSteadyIgnore.Put(e, []string{"status.conditions[Active]"})
	if got := judged(t, catalog.SteadySameEndState.ID, e); got.Outcome != verdict.Held {
		t.Errorf("the Active condition ignored: %s %q, want held", got.Outcome, got.Reason)
	}
	e.Histories["steady/scaledobjects.keda.sh"] = slices.Clone(e.Histories["steady/scaledobjects.keda.sh"]) // a new slice: rebuilt again
	for _, r := range e.Histories["steady/scaledobjects.keda.sh"] {
		if st, ok := r.Object["status"].(map[string]any); ok {
			for _, c := range st["conditions"].([]any) {
				if c := c.(map[string]any); c["type"] == "Ready" {
					c["status"] = "False"
				}
			}
		}
	}
	if got := judged(t, catalog.SteadySameEndState.ID, e); got.Outcome != verdict.Broken || !strings.Contains(got.Reason, `status.conditions[Ready].status: "True" in the reference, "False" after the faults`) {
		t.Errorf("Ready false with Active ignored: %s %q, want broken on Ready", got.Outcome, got.Reason)
	}
	FactSteadyIgnore.Put(e, []string{"status.conditions[Stalled]"})
	if got := judged(t, catalog.SteadySameEndState.ID, e); got.Outcome != verdict.NotEvaluated || !strings.Contains(got.Reason, `"status.conditions[Stalled]" names no field`) {
		t.Errorf("a condition type no object has: %s %q, want not evaluated naming it", got.Outcome, got.Reason)
	}
}

// TestRecordedStaleWatchIsRecovering re-judges an exploration schedule of
// the correct reference composite (`steadystate explore --subject
// composite --capability reconciledObjects --budget 15m --seed 1 --parallel 6`,
// schedule 0020): a 3.6 s partition left its Composite informer backing
// off, and it listed again 5.3 s after the partition ended; meanwhile,
// reconciling a change, it updated its Composite from a stale view, 409
// after 409, into the quiet window, which broke quiescent. Its Composite
// watch was not open when the quiet window began, and was once it had
// come back; with that recorded, quiescence is not owed.
func TestRecordedStaleWatchIsRecovering(t *testing.T) {
	e := readEvidence(t, filepath.Join("composite", "explore-composite-steady-stale-watch.json"))
	if got := judged(t, catalog.SteadyQuiescent.ID, e); got.Outcome != verdict.Broken {
		t.Fatalf("as recorded: %s %q, want broken (the 409s in the quiet window)", got.Outcome, got.Reason)
	}
	var q QuietWindow
	if err := json.Unmarshal([]byte(e.Facts[FactSteadyQuiet.Name]), &q); err != nil {
		t.Fatal(err)
	}
	logs := map[string][]proxy.Request{}
	for id, l := range e.Proxies {
		logs[id] = l.Requests
	}
	first := e.Faults[0].Start
	if got := StaleWatches(logs, first, q.From); !slices.Equal(got, []string{"composites"}) {
		t.Errorf("stale when the quiet window began: %v, want [composites]", got)
	}
	if got := StaleWatches(logs, first, e.End); len(got) != 0 {
		t.Errorf("stale at the end, the watch back: %v, want none", got)
	}
	delete(e.Facts, FactSteadyQuiet.Name)
	e.Facts[FactSteadyStale.Name] = `{"resources":["composites"],"within":"30s"}`
	if why := QuiescentUnbound(e); !strings.Contains(why, "did not watch composites again within 30s") {
		t.Errorf("quiescence with a stale watch: %q, want not owed, naming it", why)
	}
}

// TestRecordedStatuslessClaimIsNotReady: schedule 0281 of a six-process
// exploration of the correct composite controller. After the faults, the
// harness took the end state while the Claim had an empty status: kstatus
// calls that Current, and the run then broke same-end-state (the
// reference's conditions absent) and quiescent (the controller's status
// write came in the quiet window) on a difference of the harness's
// making. Every clean reference run ended with the Claim's status, so the
// Claim is owed one: recorded so (as the harness now records it, before
// the objects are applied), the end state says it had not settled, and
// recovers, after the last change, cannot hold on the evidence, which
// ends before the status came. As recorded, the run is judged as it ran.
func TestRecordedStatuslessClaimIsNotReady(t *testing.T) {
	e := readEvidence(t, filepath.Join("composite", "explore-composite-steady-statusless-end.json"))
	var refs []*EndState
	if err := json.Unmarshal([]byte(e.Facts[FactSteadyReferences.Name]), &refs); err != nil {
		t.Fatal(err)
	}
	if got := StatusOwed(refs); !slices.Equal(got, []string{"Claim"}) {
		t.Errorf("learned from the references: %v, want the Claim owed a status", got)
	}
	if end, err := EndStateOf(e); err != nil || end.NotReady != "" {
		t.Fatalf("as recorded: %v, not ready %q; want ready by kstatus, as the run judged it", err, end.NotReady)
	}
	if got := judged(t, catalog.SteadyRecovers.ID, e); got.Outcome != verdict.Held {
		t.Fatalf("recovers as recorded: %s %q, want held, as the run judged it", got.Outcome, got.Reason)
	}
	FactSteadyStatusOwed.Put(e, []string{"Claim"})
	if got := judged(t, catalog.SteadyRecovers.ID, e); got.Outcome != verdict.Held {
		t.Errorf("recovers in a phase not after the last change: %s %q, want held (the references say nothing of it)", got.Outcome, got.Reason)
	}
	var phases []SettlePhase
	if err := json.Unmarshal([]byte(e.Facts[FactSteadyRecover.Name]), &phases); err != nil {
		t.Fatal(err)
	}
	for i := range phases {
		phases[i].Final = true // every change was made before the faults were recovered
	}
	FactSteadyRecover.Put(e, phases)
	end, err := EndStateOf(e)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(end.NotReady, "Claim") || !strings.Contains(end.NotReady, "no status yet") {
		t.Errorf("end state's readiness: %q, want the Claim not ready for want of a status", end.NotReady)
	}
	if got := judged(t, catalog.SteadyRecovers.ID, e); got.Outcome == verdict.Held {
		t.Errorf("recovers: held, want not held while the Claim had no status (%q)", got.Reason)
	}
}

// TestStatusOwed: a kind is owed a status when every root of it ended
// every settled reference run with one; an unsettled reference teaches
// nothing, and a rule of the subject's for the kind comes first.
func TestStatusOwed(t *testing.T) {
	claim := func(status map[string]any) map[string]any {
		o := map[string]any{"kind": "Claim", "metadata": map[string]any{"name": "c"}}
		if status != nil {
			o["status"] = status
		}
		return o
	}
	cm := map[string]any{"kind": "ConfigMap", "metadata": map[string]any{"name": "m"}}
	ref := func(notReady string, objs ...map[string]any) *EndState {
		es := &EndState{NotReady: notReady, Objects: map[string]map[string]any{}}
		for i, o := range objs {
			k := fmt.Sprintf("h:ns/%d", i)
			es.Roots = append(es.Roots, k)
			es.Objects[k] = o
		}
		return es
	}
	owning := func(es *EndState, o map[string]any) *EndState {
		es.Objects["h:ns/owned"] = o
		return es
	}
	with := claim(map[string]any{"phase": "Ready"})
	for _, tc := range []struct {
		name string
		refs []*EndState
		want []string
	}{
		{"every reference with a status", []*EndState{ref("", with, cm), ref("", with, cm)}, []string{"Claim"}},
		{"one without", []*EndState{ref("", with), ref("", claim(nil))}, nil},
		{"an empty status is none", []*EndState{ref("", claim(map[string]any{}))}, nil},
		{"one of two claims without", []*EndState{ref("", with, claim(nil))}, nil},
		{"an unsettled reference teaches nothing", []*EndState{ref("x is not ready", claim(nil)), ref("", with)}, []string{"Claim"}},
		{"no settled reference", []*EndState{ref("x is not ready", with)}, nil},
		{"an owned claim without", []*EndState{owning(ref("", with), claim(nil))}, nil},
		{"an owned object of another kind without", []*EndState{owning(ref("", with), cm)}, []string{"Claim"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := StatusOwed(tc.refs); !slices.Equal(got, tc.want) {
				t.Errorf("%v, want %v", got, tc.want)
			}
		})
	}

	owed := WithStatusOwed(nil, []string{"Claim"})
	u := func(o map[string]any) *unstructured.Unstructured { return &unstructured.Unstructured{Object: o} }
	if ok, why := ObjectReady(u(claim(nil)), owed); ok || !strings.Contains(why, "no status yet") {
		t.Errorf("no status: %v %q, want not ready", ok, why)
	}
	if ok, why := ObjectReady(u(with), owed); !ok {
		t.Errorf("a status kstatus calls Current: not ready %q", why)
	}
	stalled := claim(map[string]any{"conditions": []any{map[string]any{"type": "Stalled", "status": "True", "reason": "Broken"}}})
	if ok, _ := ObjectReady(u(stalled), owed); ok {
		t.Errorf("a status kstatus calls Failed: ready, want kstatus to decide once there is a status")
	}
	subject := WithStatusOwed([]ReadinessOverride{{Kind: "Claim", Path: ""}}, []string{"Claim"})
	if ok, why := ObjectReady(u(claim(nil)), subject); !ok {
		t.Errorf("the subject's override first: not ready %q", why)
	}
}

// compared is the end state's objects by identity, compared as an end
// state of its own version is.
func (es *EndState) compared() map[string][]endObject {
	return es.comparedAs(comparisonOf(es))
}
