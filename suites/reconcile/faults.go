package reconcile

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/subjectfile"
)

// The faults at the moments that break controllers, after Sieve's
// patterns: a stale view, missed events, refused writes. Each is injected
// once the objects have settled, around a write of another party (the
// harness) that gives the controller something to get wrong: the
// binding's next change, or, with none, the deletion of an object of the
// controller's own (disturb).

// settledFirst applies the objects and waits for them to settle, as the
// clean runs do, before a fault. When they do not, it judges settles (and
// no-finalizer-on-deleting and no-panic, over what happened) and the
// spec's other properties (judged: the spec's) are not bound, saying
// why: a fault on an unsettled state tests nothing of what the spec is
// about, and settles is the finding.
func (sc *scenario) settledFirst(ctx context.Context, judged ...verdict.Property) bool {
	sc.apply(ctx)
	if sc.settle(ctx, judge.FactSteadySettle, "the objects were applied", sc.applied) {
		return true
	}
	checks := []verdict.Property{catalog.SteadySettles, catalog.SteadyNoFinalizer, catalog.SteadyNoPanic}
	for _, p := range judged {
		if !slices.Contains(checks, p) {
			sc.spec.NotBound(p, "the objects did not settle once applied (settles is the finding), so no fault was injected")
		}
	}
	sc.spec.Verify(sc.spec.Judged(catalog.SteadySettles), sc.spec.Judged(catalog.SteadyNoFinalizer), sc.spec.Judged(catalog.SteadyNoPanic))
	return false
}

// reconciled are the resources (resourceName) of the objects and of what
// they own now, sorted: the watches a stale view stalls and whose events
// are dropped.
func (sc *scenario) reconciled() []string {
	set := map[string]bool{}
	for _, o := range sc.objects {
		if o.u != nil {
			set[resourceName(o.gvr)] = true
		}
	}
	for _, k := range judge.Owned(sc.source().StateAt(time.Now()), sc.live()) {
		if r := judge.SteadyResource(k); r != "" {
			set[r] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// disturb makes another party's write while a fault acts: change next of
// the binding when there is one, else the deletion of an object of the
// controller's own (ownObject). It records the write
// (judge.FactSteadyDisturbed) and reports whether there was one to make,
// and how many changes it applied (1 when the write was the change). With seen, the write must be of a
// resource the controller watches, for a fault of its watches to hold
// the write's event: a change of another resource (a Deployment the
// EndpointSlice controller never watches) gives way to the deletion.
func (sc *scenario) disturb(ctx context.Context, next int, seen bool) (made bool, changes int) {
	var d judge.Disturbance
	if next < len(sc.b.Changes) && (!seen || sc.seesChange(sc.b.Changes[next])) {
		c := sc.b.Changes[next]
		o := sc.changeTarget(c)
		d = judge.Disturbance{What: c.String(), Key: o.key, Resource: resourceName(o.gvr), Kind: o.u.GetKind(), Namespace: o.u.GetNamespace(), Name: o.u.GetName()}
		d.At = sc.change(ctx, c)
		changes = 1
	} else {
		key, obj := sc.ownObject(seen)
		if obj == nil {
			return false, 0
		}
		res := judge.SteadyResource(key)
		d = judge.Disturbance{What: fmt.Sprintf("delete %s %s/%s, the controller's own", obj.GetKind(), obj.GetNamespace(), obj.GetName()), Key: key, Resource: res,
			Kind: obj.GetKind(), Namespace: obj.GetNamespace(), Name: obj.GetName(), Owned: true, At: time.Now()}
		background := metav1.DeletePropagationBackground
		err := sc.dyn.Resource(sc.recorded[res]).Namespace(obj.GetNamespace()).Delete(ctx, obj.GetName(), metav1.DeleteOptions{PropagationPolicy: &background})
		Expect(err).NotTo(HaveOccurred(), "%s", d.What)
	}
	judge.FactSteadyDisturbed.Set(sc.spec, sc.recordDisturbed(d))
	return true, changes
}

// changeTarget is the applied object change c names.
func (sc *scenario) changeTarget(c subjectfile.Change) object { return sc.objects[sc.changeIndex(c)] }

// changeIndex is the index of the applied object change c names, by its
// kind and its name filled in with the run's namespace (a cluster-scoped
// object's carries it).
func (sc *scenario) changeIndex(c subjectfile.Change) int {
	t, err := c.TargetIn(subjectfile.Vars{Namespace: sc.ns})
	Expect(err).NotTo(HaveOccurred(), "change %s", c)
	i := slices.IndexFunc(sc.objects, func(o object) bool { return o.u != nil && o.u.GetKind() == t.Kind && o.u.GetName() == t.Name })
	Expect(i).NotTo(BeNumerically("<", 0), "change %s: no such object", c)
	return i
}

// sees reports whether a replica of the controller watched o, of
// resource gvr: a watch of the resource in o's namespace or in all of
// them, whose label selector matches o's labels and whose field
// selector, if any, names only o's name or namespace and matches them
// (a selector on another field cannot be told from here, and is taken as
// not seeing o). A write the controller does not see is no disturbance
// of its view.
func (sc *scenario) sees(gvr schema.GroupVersionResource, o *unstructured.Unstructured) bool {
	if o == nil {
		return false
	}
	for _, r := range sc.target.Replicas {
		for _, req := range r.Requests() {
			if req.Verb != "watch" || req.GroupResource() != resourceName(gvr) || (req.Namespace != "" && req.Namespace != o.GetNamespace()) {
				continue
			}
			if judge.WatchSelects(req.RequestInfo, o) {
				return true
			}
		}
	}
	return false
}

// ownObject is an object of the controller's own for another party to
// delete: one the objects own (by ownerReferences, transitively) or one
// the controller itself created (by the uid or name its create's answer
// carried), not an applied object, not deleting, one that owns nothing
// first (its deletion takes nothing else with it), then by key; with
// seen, only one a watch of the controller selects (sees: a Pod its
// Deployment's ReplicaSet owns is not, for an operator that watches
// Deployments; a ConfigMap another controller made is never its own). nil
// when there is none.
func (sc *scenario) ownObject(seen bool) (string, *unstructured.Unstructured) {
	s := sc.source().StateAt(time.Now())
	roots := sc.live()
	created := map[string]bool{} // uid, or resource/namespace/name
	for _, r := range sc.target.Replicas {
		for _, req := range r.Requests() {
			if !req.Created() || !judge.IsControllerWrite(req.RequestInfo) {
				continue
			}
			if req.Object != nil && req.Object.UID != "" {
				created[req.Object.UID] = true
			} else if n := req.ObjectName(); n != "" {
				created[req.GroupResource()+"/"+req.Namespace+"/"+n] = true
			}
		}
	}
	candidates := map[string]bool{}
	for _, k := range judge.Owned(s, roots) {
		candidates[k] = true
	}
	owners := map[string]bool{}
	for k, o := range s {
		if created[string(o.GetUID())] || created[judge.SteadyResource(k)+"/"+o.GetNamespace()+"/"+o.GetName()] {
			candidates[k] = true
		}
		for _, ref := range o.GetOwnerReferences() {
			owners[string(ref.UID)] = true
		}
	}
	var leaves, others []string
	for k := range candidates {
		o := s[k]
		if o == nil || slices.Contains(roots, k) || o.GetDeletionTimestamp() != nil || (o.GetNamespace() != "" && o.GetNamespace() != sc.ns) {
			continue
		}
		gvr, ok := sc.recorded[judge.SteadyResource(k)]
		if !ok || (seen && !sc.sees(gvr, o)) {
			continue
		}
		if owners[string(o.GetUID())] {
			others = append(others, k)
		} else {
			leaves = append(leaves, k)
		}
	}
	slices.Sort(leaves)
	slices.Sort(others)
	for _, ks := range [][]string{leaves, others} {
		if len(ks) > 0 {
			return ks[0], s[ks[0]]
		}
	}
	return "", nil
}

// seesChange reports whether the controller sees the object change c
// names (sees), as it is now.
func (sc *scenario) seesChange(c subjectfile.Change) bool {
	o := sc.changeTarget(c)
	cur := sc.source().StateAt(time.Now())[o.key]
	if cur == nil {
		cur = o.u
	}
	return sc.sees(o.gvr, cur)
}

// recordedWrite waits, within T, until the recorded histories show d's write:
// the API server has sent its event to every watch then.
func (sc *scenario) recordedWrite(ctx context.Context, d judge.Disturbance) {
	rv := func(o *unstructured.Unstructured) string {
		if o == nil {
			return ""
		}
		return o.GetResourceVersion()
	}
	before := rv(sc.source().StateAt(d.At)[d.Key])
	_ = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, sc.b.SettleWithin.Duration, true, func(context.Context) (bool, error) {
		return rv(sc.source().StateAt(time.Now())[d.Key]) != before, nil
	})
}

// hold keeps a fault in place for d, or until the spec ends: the fault's
// length, not a wait for anything.
func hold(ctx context.Context, d time.Duration) {
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
}

// ruleCount counts, on every replica's proxy, what the rules of a proxy
// fault acted on that count selects: its events, or the requests it
// answered.
func (sc *scenario) ruleCount(a *chaos.Active, events func(proxy.Event) bool, requests func(proxy.Request) bool) int {
	rules := chaos.Rules(a.Injection())
	n := 0
	for _, r := range sc.target.Replicas {
		id, ok := rules[r.Identity]
		if !ok {
			continue
		}
		if events != nil {
			for _, ev := range r.Proxy.Events() {
				if ev.Fault == id && events(ev) {
					n++
				}
			}
		}
		if requests != nil {
			for _, req := range r.Requests() {
				if req.Fault == id && requests(req) {
					n++
				}
			}
		}
	}
	return n
}

// of reports whether a proxy event is of a disturbed object.
func (sc *scenario) of(ev proxy.Event) bool {
	return slices.ContainsFunc(sc.disturbances(), func(d judge.Disturbance) bool {
		return ev.Kind == d.Kind && ev.Namespace == d.Namespace && ev.Name == d.Name
	})
}

// staleView stalls the controller's watches of the objects and of what
// they own, makes another party's write while they are stalled, keeps the
// stall W past the moment the write is recorded, then lets the watches
// resume (the held events delivered in order). It returns when the
// watches resumed and the first change not yet applied.
func (sc *scenario) staleView(ctx context.Context, tl *chaos.Timeline) (time.Time, int) {
	stall := chaos.Stall("", 0)
	stall.Rule.Match = proxy.Match{Resources: sc.reconciled()}
	// A stall that fails is on the timeline, for the premise.
	a, err := chaos.Begin(ctx, tl, stall, sc.target)
	if err != nil {
		return time.Now(), 0
	}
	made, next := sc.disturb(ctx, 0, true)
	if made {
		ds := sc.disturbances()
		sc.recordedWrite(ctx, ds[len(ds)-1])
		hold(ctx, sc.b.SettleWindow.Duration)
	}
	_ = a.End(ctx)
	return a.Injection().End, next
}

// missedEvents drops the watch events of the objects' resources and of
// what they own in the namespace, makes another party's write, keeps the
// drop until its event was dropped (within T), then forces a relist of
// each resource (the re-watch answered 410 Expired). It returns when the
// last relist was done and the first change not yet applied.
func (sc *scenario) missedEvents(ctx context.Context, tl *chaos.Timeline) (time.Time, int) {
	resources := sc.reconciled()
	drop := chaos.DropEvents("", proxy.EventMatch{Namespace: sc.faultNamespace()}, 0)
	drop.Rule.Match = proxy.Match{Resources: resources}
	a, err := chaos.Begin(ctx, tl, drop, sc.target)
	if err != nil {
		return time.Now(), 0
	}
	made, next := sc.disturb(ctx, 0, true)
	if made {
		_ = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, sc.b.SettleWithin.Duration, true, func(context.Context) (bool, error) {
			return sc.ruleCount(a, func(ev proxy.Event) bool { return !ev.Delivered && sc.of(ev) }, nil) > 0, nil
		})
	}
	_ = a.End(ctx)
	end := a.Injection().End
	for _, r := range resources {
		// A relist that fails is on the timeline, for the premise.
		inj, _ := chaos.Inject(ctx, tl, &chaos.ForcedRelist{Resource: r}, sc.target)
		end = inj.End
	}
	return end, next
}

// refusedWrites answers the controller's writes of the recorded resources
// in the namespace with each of judge.RefusedCodes in turn, each until it
// has answered two of them (within T; one that answered none within T is
// the last). Under the first it makes another
// party's write to draw them: the next change, and while none is answered
// within W, the one after it, and once none is left, the deletion of an
// object of the controller's own. It returns when the last code was
// lifted and the first change not yet applied.
func (sc *scenario) refusedWrites(ctx context.Context, tl *chaos.Timeline) (time.Time, int) {
	match := proxy.Match{Verbs: proxy.WriteVerbs, Resources: slices.Sorted(maps.Keys(sc.recorded)), Namespace: sc.faultNamespace()}
	answered := func(req proxy.Request) bool { return judge.IsControllerWrite(req.RequestInfo) }
	next, end := 0, time.Now()
	// The next code is armed before the one before it is lifted: the proxy
	// answers with its oldest rule, so no write passes between the two
	// (one that did could leave the controller nothing to write under the
	// next code).
	var prev *chaos.Active
	lift := func() {
		if prev != nil {
			_ = prev.End(ctx)
			end = prev.Injection().End
			prev = nil
		}
	}
	defer lift()
	for i, code := range judge.RefusedCodes {
		a, err := chaos.Begin(ctx, tl, chaos.RespondWith(code, match, 0, 0), sc.target)
		lift()
		if err != nil {
			return time.Now(), next
		}
		some := func(n int) func(context.Context) (bool, error) {
			return func(context.Context) (bool, error) { return sc.ruleCount(a, nil, answered) >= n, nil }
		}
		for i == 0 && ctx.Err() == nil {
			change := next < len(sc.b.Changes)
			// One deletion of its own draws writes, or nothing does.
			if made, _ := sc.disturb(ctx, next, false); !made || !change {
				break
			}
			next++
			if wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, sc.b.SettleWindow.Duration, true, some(1)) == nil {
				break
			}
		}
		_ = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, sc.b.SettleWithin.Duration, true, some(2))
		prev = a
		if acted, _ := some(1)(ctx); !acted {
			// The controller made no write within T: the codes after
			// this one would wait T each for nothing (the premise says
			// which answered none).
			break
		}
	}
	lift()
	return end, next
}

// faultNamespace is the namespace a fault that drops events or refuses
// writes is narrowed to: the run's, or every one ("") when an object is
// cluster-scoped, whose events and writes have none. The controller's
// proxy is the run's own: what it sees of other namespaces is not.
func (sc *scenario) faultNamespace() string {
	for _, o := range sc.objects {
		if o.key != "" && judge.SteadyKeyNamespace(o.key) == "" {
			return ""
		}
	}
	return sc.ns
}

// disturbable reports whether another party has a write to make while a
// fault acts (disturb): a change, or an object of the controller's own to
// delete; with seen, of a resource the controller watches, as disturb
// needs it. When there is none, the spec's properties are not bound,
// saying why: the fault would find the controller with nothing to do.
func (sc *scenario) disturbable(seen bool, ps ...verdict.Property) bool {
	if len(sc.b.Changes) > 0 && (!seen || sc.seesChange(sc.b.Changes[0])) {
		return true
	}
	if _, obj := sc.ownObject(seen); obj != nil {
		return true
	}
	what := ""
	if seen {
		what = " of a resource it watches"
	}
	sc.notBound("capabilities.reconciledObjects.changes binds no change"+what+", and nothing of the controller's own (owned by the objects, or of a resource it created)"+what+" exists to delete: another party has no write to make while the fault acts, which would find the controller with nothing to do", ps...)
	return false
}

// notBound records the properties ps not bound, saying why, and judges
// nothing else: never a pass and never a finding.
func (sc *scenario) notBound(why string, ps ...verdict.Property) {
	for _, p := range ps {
		sc.spec.NotBound(p, why)
		if p.Stage == verdict.Assumption {
			// The spec's premise: none of its properties is judged, and
			// the evidence says why, for verify's re-judging.
			judge.FactSpecNotBound.Set(sc.spec, judge.SpecNotBound{Premise: p.ID, Why: why})
		}
	}
	sc.spec.Verify()
}

// drewNoWrite reports whether the fault of premise found the controller
// with no write to make though the harness wrote while it acted (for the
// refused writes: judge.WritesRefusedUnbound). Then the spec's properties
// are not bound, saying why, and it goes no further.
func (sc *scenario) drewNoWrite(premise verdict.Property) bool {
	if premise != catalog.SteadyWritesRefused {
		return false
	}
	why := judge.WritesRefusedUnbound(sc.spec.Evidence().Snapshot())
	if why == "" {
		return false
	}
	sc.notBound(why, faultProperties(premise)...)
	return true
}

// afterFault lets the controller recover from the fault lifted at
// recovered (judge.FactSteadyRecover), applies the changes left from the
// next-th on, as the reference runs made them, takes the end state and
// judges the spec: its premise, then the steady-state properties.
func (sc *scenario) afterFault(ctx context.Context, premise verdict.Property, what string, recovered time.Time, next int) {
	settled := sc.changes(ctx, sc.settle(ctx, judge.FactSteadyRecover, what, recovered), next)
	sc.finish(ctx, settled, premise, sc.spec.Judged(catalog.SteadySettles))
}

// faultProperties are the properties a fault's spec judges: its premise, then
// settles (the objects applied, the changes after the fault), recovers,
// same-end-state, no-churn, no-finalizer-on-deleting, quiescent (once it
// settled again) and no-panic.
func faultProperties(premise verdict.Property) []verdict.Property {
	return []verdict.Property{premise, catalog.SteadySettles, catalog.SteadyRecovers, catalog.SteadySameEndState, catalog.SteadyNoChurn, catalog.SteadyNoFinalizer, catalog.SteadyQuiescent, catalog.SteadyNoPanic}
}
