package reconcile

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/subjectfile"
	"github.com/steadystate-dev/steadystate/suites/subject"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// commonResources are recorded beside the objects' own groups: what a
// controller most often makes for the objects it reconciles.
var commonResources = []schema.GroupVersionResource{
	{Version: "v1", Resource: "configmaps"}, {Version: "v1", Resource: "secrets"}, {Version: "v1", Resource: "services"},
	{Version: "v1", Resource: "serviceaccounts"}, {Version: "v1", Resource: "pods"}, {Version: "v1", Resource: "persistentvolumeclaims"},
	{Group: "apps", Version: "v1", Resource: "deployments"}, {Group: "apps", Version: "v1", Resource: "replicasets"},
	{Group: "apps", Version: "v1", Resource: "statefulsets"}, {Group: "batch", Version: "v1", Resource: "jobs"},
}

// object is one applied object: where it lives and its key in the joined
// histories. A cluster-scoped object's namespace is "".
type object struct {
	u   *unstructured.Unstructured
	gvr schema.GroupVersionResource
	key string
}

// resource is the object's resource, in its namespace or, cluster-scoped,
// in none.
func (sc *scenario) resource(o object) dynamic.ResourceInterface {
	return sc.dyn.Resource(o.gvr).Namespace(o.u.GetNamespace())
}

// scenario is one spec's run of the steady-state binding: the controller,
// its objects, the recorded histories joined, and the phases so far.
type scenario struct {
	// spec is the spec the scenario runs for, whose evidence it records.
	spec      *testenv.Spec
	b         *subjectfile.ReconciledObjects
	ns        string
	dyn       dynamic.Interface
	target    chaos.Target
	objects   []object
	src       oracle.Source
	overrides []judge.ReadinessOverride
	// refs are the clean runs' end states this run is compared with
	// (compareWith); none for a clean run.
	refs []*judge.EndState
	// owed are the kinds the reference runs taught are owed a status
	// (judge.StatusOwed), from the phase after the last change on; made
	// counts the changes made.
	owed []string
	// owedObjects are, by kind, the objects the reference runs teach are
	// owed (judge.ObjectsOwed, FactSteadyObjectsOwed), from the phase after
	// the last change on.
	owedObjects map[string]int
	made        int
	applied     time.Time
	phases      map[judge.PhaseFact][]judge.SettlePhase
	// recorded are the recorded resources by name (resourceName).
	recorded map[string]schema.GroupVersionResource
	// clusterScoped are the recorded resources of a cluster-scoped kind,
	// recorded in the whole cluster, by name.
	clusterScoped map[string]bool
	// disturbed are the writes the harness made while a fault acted
	// (judge.FactSteadyDisturbed), guarded by disturbedMu: a schedule's
	// fault step adds to them while the run waits (Scenario.DeletedOwn).
	disturbedMu sync.Mutex
	disturbed   []judge.Disturbance

	// srcMu guards src, which follow replaces as it records more.
	srcMu sync.RWMutex
	// histories are the recorded histories by name; follow adds to them
	// what the controller creates that nothing recorded yet.
	histories map[string]*oracle.History
	dc        discovery.DiscoveryInterface
	mapper    meta.RESTMapper
	// followed is, per replica, the ID of the last proxy request follow
	// has read; unstored are the resources the controller created
	// objects of that the API server does not store
	// (judge.FactSteadyUnstored).
	followed map[string]uint64
	unstored []string
	// storedCache is storedWrite's answers, by resource.
	storedCache map[schema.GroupVersionResource]bool
}

// source is the recorded histories joined, as follow has them now.
func (sc *scenario) source() oracle.Source {
	sc.srcMu.RLock()
	defer sc.srcMu.RUnlock()
	return sc.src
}

// start records the namespace's resources the objects and the controller
// may write, starts the controller and applies nothing yet.
func start(ctx context.Context, spec *testenv.Spec, ns string) *scenario {
	s := subject.Steady()
	b := s.Steady()
	env := testenv.Get()
	sc := &scenario{spec: spec, b: b, ns: ns, dyn: dynamic.NewForConfigOrDie(env.REST), phases: map[judge.PhaseFact][]judge.SettlePhase{}, clusterScoped: map[string]bool{}, followed: map[string]uint64{}}
	dc := discovery.NewDiscoveryClientForConfigOrDie(env.REST)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	sc.dc, sc.mapper = dc, mapper
	// Whether a kind is namespaced is the API server's word: its
	// discovery, through the mapper.
	objs, err := s.SteadyObjects(ns, func(gvk schema.GroupVersionKind) (bool, error) {
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return false, err
		}
		return m.Scope.Name() == meta.RESTScopeNameNamespace, nil
	})
	if err != nil {
		// The subject file's one line, not a dump of the error's fields.
		Fail(err.Error())
	}

	record := map[schema.GroupVersionResource]bool{}
	for _, r := range commonResources {
		record[r] = true
	}
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		Expect(err).NotTo(HaveOccurred(), "subject %q: capabilities.reconciledObjects.objects: the cluster does not serve %s; expected a kind the cluster or the subject's manifests define", s.Name(), gvk)
		sc.objects = append(sc.objects, object{u: o, gvr: m.Resource, key: judge.SteadyKey(judge.SteadyHistory(resourceName(m.Resource)), o.GetNamespace(), o.GetName())})
		record[m.Resource] = true
		if m.Scope.Name() != meta.RESTScopeNameNamespace {
			sc.clusterScoped[resourceName(m.Resource)] = true
		}
		// Every namespaced resource of the objects' group: what an
		// operator's kinds own is mostly its own kinds.
		list, err := dc.ServerResourcesForGroupVersion(m.Resource.GroupVersion().String())
		Expect(err).NotTo(HaveOccurred())
		for _, r := range list.APIResources {
			if r.Namespaced && !strings.Contains(r.Name, "/") && slices.Contains(r.Verbs, "watch") && slices.Contains(r.Verbs, "list") {
				record[m.Resource.GroupVersion().WithResource(r.Name)] = true
			}
		}
	}
	for i, r := range b.Record {
		res, group, _ := strings.Cut(r, ".")
		gvr, err := mapper.ResourceFor(schema.GroupVersionResource{Group: group, Resource: res})
		Expect(err).NotTo(HaveOccurred(), "subject %q: capabilities.reconciledObjects.record[%d]: the cluster does not serve %s; expected a resource the cluster or the subject's manifests define", s.Name(), i, r)
		record[gvr] = true
		gvk, err := mapper.KindFor(gvr)
		Expect(err).NotTo(HaveOccurred(), "subject %q: capabilities.reconciledObjects.record[%d]: the kind of %s", s.Name(), i, r)
		if m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err == nil && m.Scope.Name() != meta.RESTScopeNameNamespace {
			sc.clusterScoped[resourceName(gvr)] = true
		}
	}
	if testenv.Run().Cluster.Share.Dir != "" {
		// The processes sharing the cluster confine each subject to its
		// namespace: only a cluster-scoped object would be met by them
		// all, and what an earlier run left in its namespace is met by
		// none, so nothing is cleared.
		if len(sc.clusterScoped) > 0 {
			// Once, not in every schedule: no schedule of this run
			// can be judged.
			AbortSuite(fmt.Sprintf("subject %q: its steady-state objects or recorded resources are of cluster-scoped %s, which the processes sharing one cluster (--shared-cluster) would meet in each other's runs: explore it with a cluster per process (drop --shared-cluster)", s.Name(), strings.Join(slices.Sorted(maps.Keys(sc.clusterScoped)), ", ")))
		}
	} else {
		sc.clearEarlierRuns(ctx)
	}
	histories := map[string]*oracle.History{}
	var names []string
	sc.recorded = map[string]schema.GroupVersionResource{}
	for gvr := range record {
		sc.recorded[resourceName(gvr)] = gvr
		name := judge.SteadyHistory(resourceName(gvr))
		// A cluster-scoped resource is recorded in the whole cluster: the
		// run's objects are told apart by their names (the namespace in
		// each), by their owners, and by the controller's writes.
		in := ns
		if sc.clusterScoped[resourceName(gvr)] {
			in = ""
		}
		histories[name] = sc.spec.RecordAs(ctx, name, sc.dyn, gvr, in, "")
		names = append(names, name)
	}
	slices.Sort(names)
	sc.histories = histories
	sc.src = oracle.Join(oracle.NewHistory(), histories)
	judge.FactSteadyHistories.Set(sc.spec, names)
	var keys []string
	for _, o := range sc.objects {
		keys = append(keys, o.key)
	}
	judge.FactSteadyObjects.Set(sc.spec, keys)
	judge.FactSteadyNamespace.Set(sc.spec, ns)
	for _, o := range b.Readiness.Overrides {
		sc.overrides = append(sc.overrides, judge.ReadinessOverride{Kind: o.Kind, Path: o.Path, Value: o.Value, Exists: o.Exists})
	}
	if len(sc.overrides) > 0 {
		judge.FactSteadyReadiness.Set(sc.spec, sc.overrides)
	}
	judge.FactSteadyShared.Set(sc.spec, b.Shared)
	// The garbage collector must know the objects' kinds before their
	// deletion is judged: what they own would outlive them by up to its
	// 30 s rediscovery otherwise (longer than goneWithin may be). A
	// subject that is the garbage collector discovers them as it starts,
	// and the cluster runs no collector of its own to probe.
	if !subject.Replaces(gcController) {
		Expect(testenv.GCResynced(ctx)).To(Succeed())
	}
	sc.target = s.StartSteady(ctx, spec, ns)
	sc.awaitWatching(ctx)
	return sc
}

// watchingWithin is how long a run waits, once the controller started,
// for it to watch what the run applies (awaitWatching).
const watchingWithin = time.Minute

// awaitWatching waits until a replica of the controller has a watch open
// of the resource of an applied object, up to watchingWithin: a
// controller not yet watching acts on nothing, and objects applied before
// it does look settled (one with no status is ready) before it ever saw
// them. On a machine slow enough that the controller's start lags the
// run's, the first clean run ended before the controller acted at all,
// and the second's quiet window took the controller's start for writes.
// A controller that watches none of those resources by then (it watches
// only what they own, or nothing) meets the objects as it is, and its
// properties judge what it does; the spec's output says so. Replicas the
// harness cannot see through (no proxy) are not waited for.
func (sc *scenario) awaitWatching(ctx context.Context) {
	want := map[string]bool{}
	for _, o := range sc.objects {
		want[resourceName(o.gvr)] = true
	}
	if len(requestLogs(sc.target)) == 0 || len(want) == 0 {
		return
	}
	began := time.Now()
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, watchingWithin, true, func(context.Context) (bool, error) {
		for _, reqs := range requestLogs(sc.target) {
			if slices.ContainsFunc(reqs, func(req proxy.Request) bool {
				return req.Verb == "watch" && req.End.IsZero() && want[req.GroupResource()]
			}) {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(GinkgoWriter, "the controller opened no watch of %s within %s of its start: the objects are applied all the same\n", strings.Join(slices.Sorted(maps.Keys(want)), ", "), watchingWithin)
	} else if waited := time.Since(began); waited > time.Second {
		fmt.Fprintf(GinkgoWriter, "the controller watched the objects' resources %s after its start\n", waited.Round(time.Millisecond))
	}
}

// clearEarlierRuns clears what earlier runs left of the objects'
// resources, before this run's controller starts and meets it, and
// before anything is recorded.
func (sc *scenario) clearEarlierRuns(ctx context.Context) {
	earlier := testenv.EarlierRuns{Kube: testenv.Get().Kube, Dyn: sc.dyn, Own: sc.ns, Poll: 250 * time.Millisecond}
	for _, o := range sc.objects {
		if o.u.GetNamespace() != "" && !slices.Contains(earlier.Resources, o.gvr) {
			earlier.Resources = append(earlier.Resources, o.gvr)
		}
	}
	stripped, err := earlier.Clear(ctx, sc.b.GoneWithin.Duration)
	if len(stripped) > 0 {
		fmt.Fprintf(GinkgoWriter, "removed the finalizers of what earlier runs left in namespaces being deleted, still there after %s: %s\n", sc.b.GoneWithin.Duration, strings.Join(stripped, ", "))
	}
	if err != nil {
		Fail(err.Error())
	}
}

func resourceName(gvr schema.GroupVersionResource) string {
	if gvr.Group == "" {
		return gvr.Resource
	}
	return gvr.Resource + "." + gvr.Group
}

// follow records what the controller wrote (a create, an update or a
// patch of an object, answered or cut off: a create whose answer a
// restart cut off may have made its object) of a resource, or in a
// namespace, that nothing records yet: the run's end state and what it
// leaves behind cover everything it made, wherever (an object in another
// namespace is recorded there, judge.SteadyHistoryIn). What the API
// server does not store (its discovery offers no list and watch of the
// resource: an access review, a token review) is only named
// (judge.FactSteadyUnstored). A history begun late lists what is there
// when it begins. Call it from the spec's goroutine.
func (sc *scenario) follow(ctx context.Context) {
	added := false
	for _, r := range sc.target.Replicas {
		if r.Proxy == nil {
			continue
		}
		for _, req := range r.Proxy.RequestsAfter(sc.followed[r.Identity]) {
			sc.followed[r.Identity] = max(sc.followed[r.Identity], req.ID)
			made := req.Verb == "create" || req.Verb == "update" || req.Verb == "patch"
			if !made || req.Subresource != "" || !judge.IsControllerWrite(req.RequestInfo) || (req.Code != 0 && (req.Code < 200 || req.Code > 299)) {
				continue
			}
			gvr := schema.GroupVersionResource{Group: req.Group, Version: req.Version, Resource: req.Resource}
			res := resourceName(gvr)
			name := judge.SteadyHistory(res)
			if req.Namespace != "" && req.Namespace != sc.ns {
				name = judge.SteadyHistoryIn(res, req.Namespace)
			}
			if _, ok := sc.histories[name]; ok || slices.Contains(sc.unstored, res) {
				continue
			}
			stored, err := sc.stored(gvr)
			Expect(err).NotTo(HaveOccurred(), "discover %s, which the controller created", res)
			if !stored {
				sc.unstored = append(sc.unstored, res)
				judge.FactSteadyUnstored.Set(sc.spec, sc.unstored)
				continue
			}
			sc.histories[name] = sc.spec.RecordAs(ctx, name, sc.dyn, gvr, req.Namespace, "")
			added = true
		}
	}
	if !added {
		return
	}
	names := slices.Sorted(maps.Keys(sc.histories))
	judge.FactSteadyHistories.Set(sc.spec, names)
	sc.srcMu.Lock()
	sc.src = oracle.Join(oracle.NewHistory(), sc.histories)
	sc.srcMu.Unlock()
}

// stored reports whether the API server keeps objects of gvr: its
// discovery offers list and watch of it.
func (sc *scenario) stored(gvr schema.GroupVersionResource) (bool, error) {
	list, err := sc.dc.ServerResourcesForGroupVersion(gvr.GroupVersion().String())
	if err != nil {
		return false, err
	}
	for _, r := range list.APIResources {
		if r.Name == gvr.Resource {
			return slices.Contains(r.Verbs, "list") && slices.Contains(r.Verbs, "watch"), nil
		}
	}
	return false, fmt.Errorf("the API server does not list %s in %s", gvr.Resource, gvr.GroupVersion())
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

// apply creates the objects, in order.
func (sc *scenario) apply(ctx context.Context) {
	sc.applied = time.Now()
	for _, o := range sc.objects {
		_, err := sc.resource(o).Create(ctx, o.u, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred(), "apply %s %s", o.u.GetKind(), o.u.GetName())
		sc.deleteAtEnd(o)
	}
}

// named are the resources of the cluster-scoped objects, whose writes
// are the run's only of its own objects (judge.RunWrite).
func (sc *scenario) named() []string {
	var out []string
	for _, o := range sc.objects {
		if r := resourceName(o.gvr); judge.SteadyKeyNamespace(o.key) == "" && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// deleteAtEnd deletes an applied object when the spec ends and waits
// until it is gone or the binding's goneWithin passed: registered once the
// controller started, it runs while the controller still does (cleanups
// run last first), so that a finalizer of its own is released and the
// next spec's controller finds nothing of this run's. The namespace's
// deletion is not enough: it goes on in the background, and a controller
// that watches every namespace met the previous spec's objects in the
// next (MetalLB gave a deleted run's Service an address from the next
// run's pool, and kept it). A cluster-scoped object no namespace's
// deletion removes at all. A spec that deleted it already finds it gone.
func (sc *scenario) deleteAtEnd(o object) {
	name, res := o.u.GetName(), sc.resource(o)
	DeferCleanup(func(ctx SpecContext) {
		cur, err := res.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return
		}
		Expect(err).NotTo(HaveOccurred(), "get %s %s at the end of the spec", o.u.GetKind(), name)
		// One being deleted already (by a change, with its own
		// propagation) is waited for, not deleted again: a second
		// delete would replace its propagation's finalizers.
		if cur.GetDeletionTimestamp() == nil {
			background := metav1.DeletePropagationBackground
			err = res.Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &background})
			if apierrors.IsNotFound(err) {
				return
			}
			Expect(err).NotTo(HaveOccurred(), "delete %s %s at the end of the spec", o.u.GetKind(), name)
		}
		_ = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, sc.b.GoneWithin.Duration, true, func(ctx context.Context) (bool, error) {
			_, err := res.Get(ctx, name, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
	})
}

// recordDisturbed records d, a write the harness made while a fault
// acted, and returns every one recorded so far.
func (sc *scenario) recordDisturbed(d judge.Disturbance) []judge.Disturbance {
	sc.disturbedMu.Lock()
	defer sc.disturbedMu.Unlock()
	sc.disturbed = append(sc.disturbed, d)
	return slices.Clone(sc.disturbed)
}

// disturbances are the writes the harness made while a fault acted, so
// far.
func (sc *scenario) disturbances() []judge.Disturbance {
	sc.disturbedMu.Lock()
	defer sc.disturbedMu.Unlock()
	return slices.Clone(sc.disturbed)
}

// live are the keys of the objects not deleted by a change.
func (sc *scenario) live() []string {
	var out []string
	for _, o := range sc.objects {
		if o.u != nil {
			out = append(out, o.key)
		}
	}
	return out
}

// settle records a phase of fact (judge.FactSteadySettle or
// FactSteadyRecover) from since and waits until the state has been ready
// for W, or T+W passed. It reports whether it settled; the verdict is the
// judge's.
func (sc *scenario) settle(ctx context.Context, fact judge.PhaseFact, what string, since time.Time) bool {
	return sc.settleWithin(ctx, fact, what, since, sc.b.SettleWithin.Duration)
}

// settleWithin is settle with within in place of T. After faults
// (judge.FactSteadyRecover) the window W starts no earlier than when the
// controller watched again each resource it watched when the first fault
// began (WatchesBack, judge.SettlePhase.Convergence): until then its
// objects may look settled only because it has not seen what changed
// meanwhile, and the end state taken after the window would be its stale
// view's; and no earlier than when each write of the run a fault refused
// was written again or its retry was due (RetriesOwed): until then its
// objects may look settled only because it has not acted again yet.
func (sc *scenario) settleWithin(ctx context.Context, fact judge.PhaseFact, what string, since time.Time, within time.Duration) bool {
	sc.follow(ctx)
	ph := judge.SettlePhase{What: what, Since: since, Within: within.String(), Window: sc.b.SettleWindow.String(), Objects: sc.live(), Final: sc.made >= len(sc.b.Changes)}
	sc.phases[fact] = append(sc.phases[fact], ph)
	fact.Set(sc.spec, sc.phases[fact])
	if fact == judge.FactSteadyRecover {
		back, stale := WatchesBack(ctx, sc.spec, sc.target, since, time.Until(since.Add(within)))
		if len(stale) > 0 {
			fmt.Fprintf(GinkgoWriter, "%s after the recovery, the controller did not watch again: %s; the state is waited for from the recovery\n", within, strings.Join(stale, ", "))
			reconciled := []string{}
			for _, res := range stale {
				if slices.ContainsFunc(sc.reconciled(), func(r string) bool { r, _, _ = strings.Cut(r, "."); return r == res }) {
					reconciled = append(reconciled, res)
				}
			}
			judge.FactSteadyStale.Set(sc.spec, judge.Stale{Resources: stale, Within: within.String(), Reconciled: reconciled})
		}
		if back.After(since) {
			ph.WatchesBack = back
		}
		if due, owed := RetriesOwed(ctx, sc.target, sc.ns, sc.named(), since.Add(within)); len(owed) > 0 {
			ph.RetriesDue, ph.Retries = due, owed
			if late := judge.Pending(owed, due); len(late) > 0 {
				fmt.Fprintf(GinkgoWriter, "%s after the recovery, the controller's retry of %d write(s) the faults refused was still to come (%s due at %s); W is counted from T\n", within, len(late), late[0].Object, late[0].Due.Format("15:04:05.000"))
			}
		}
		sc.phases[fact][len(sc.phases[fact])-1] = ph
		fact.Set(sc.spec, sc.phases[fact])
	}
	c := ph.Convergence(within, sc.b.SettleWindow.Duration)
	owedObjects := judge.ObjectsOwedAfter(sc.owedObjects, sc.disturbances(), sc.source())
	_, err := c.Wait(ctx, sc.source(), judge.AllReady(ph.Objects, ph.Readiness(sc.overrides, sc.owed, owedObjects)))
	return err == nil
}

// WatchesBack waits, up to within, until every replica of t watches again
// each resource it watched when the first fault began (one of spec's
// timeline; judge.StaleWatches), and returns when, from the proxy logs,
// the last of those it did not watch at since came back
// (judge.WatchesBackAt: since when none), or those it still does not
// watch. It returns zero and none when no fault acted or no replica has a
// proxy to tell. A controller whose informer is still backing off after a
// partition (client-go's reflector pauses up to 30 to 60 s between failed
// lists) acts on a stale view until its watch is back, and that is its
// recovery. A restarted replica is back only with watches its new process
// opened (judge.EndedWithTheirProcess).
func WatchesBack(ctx context.Context, spec *testenv.Spec, t chaos.Target, since time.Time, within time.Duration) (time.Time, []string) {
	faults := spec.Evidence().Snapshot().Faults
	if len(faults) == 0 {
		return time.Time{}, nil
	}
	first := faults[0].Start // in order of injection
	var stale []string
	var back time.Time
	_ = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, max(within, 0), true, func(context.Context) (bool, error) {
		// A restarted replica watches again only with watches its new
		// process opened.
		logs := judge.EndedWithTheirProcess(requestLogs(t), faults)
		if len(logs) == 0 {
			return true, nil
		}
		now := time.Now()
		if stale = judge.StaleWatches(logs, first, now); len(stale) == 0 {
			back = judge.WatchesBackAt(logs, first, since, now)
		}
		return len(stale) == 0, nil
	})
	return back, stale
}

// requestLogs are the requests each replica of t with a proxy made so
// far, by its identity.
func requestLogs(t chaos.Target) map[string][]proxy.Request {
	logs := map[string][]proxy.Request{}
	for _, r := range t.Replicas {
		if r.Proxy != nil {
			logs[r.Identity] = r.Requests()
		}
	}
	return logs
}

// RetriesOwed waits, up to until, while a write of the run (in namespace
// ns, or of the cluster-scoped resources named) that a fault refused is
// still owed its retry (judge.OwedRetries) by a replica of t: a
// controller backing off after refusals looks settled until its retry
// comes, and the end state taken meanwhile is one it was about to
// change. It returns when the wait ended (until at the latest) and the
// retries that held it (judge.RetryWait); zero and none when none was
// owed.
func RetriesOwed(ctx context.Context, t chaos.Target, ns string, named []string, until time.Time) (time.Time, []judge.OwedRetry) {
	var w judge.RetryWait
	var end time.Time
	_ = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, max(time.Until(until), 0), true, func(context.Context) (bool, error) {
		logs := requestLogs(t)
		end = time.Now()
		if end.After(until) {
			end = until
		}
		return w.Look(judge.OwedRetries(logs, ns, named, end), end), nil
	})
	held := w.Held()
	if len(held) == 0 {
		return time.Time{}, nil
	}
	return end, held
}

// change applies one change and returns when it was made. Its merge
// patch is a template of {{.Namespace}} as the objects are. A change the
// API server refuses, or whose template does not fill in, is the
// binding's mistake: the spec fails with one line naming the change and
// what the server said, and the suite's later steady-state specs are not
// run (each would wait for the same refusal).
func (sc *scenario) change(ctx context.Context, c subjectfile.Change) time.Time {
	i := sc.changeIndex(c)
	n := slices.IndexFunc(sc.b.Changes, func(b subjectfile.Change) bool {
		return b.Patch == c.Patch && b.Delete == c.Delete && b.Scale == c.Scale
	})
	sc.made++
	o := sc.objects[i]
	t := subjectfile.ObjectName{Kind: o.u.GetKind(), Name: o.u.GetName()}
	res := sc.resource(o)
	at := time.Now()
	var err error
	switch {
	case c.Patch != nil:
		var merge any
		merge, err = subjectfile.ExpandAll(c.Patch.Merge, subjectfile.Vars{Namespace: sc.ns})
		if err == nil {
			_, err = res.Patch(ctx, t.Name, types.MergePatchType, []byte(mustJSON(merge)), metav1.PatchOptions{})
		}
	case c.Scale != nil:
		patch := map[string]any{}
		cur := patch
		parts := strings.Split(c.Scale.Path, ".")
		for _, p := range parts[:len(parts)-1] {
			next := map[string]any{}
			cur[p], cur = next, next
		}
		cur[parts[len(parts)-1]] = c.Scale.Value
		_, err = res.Patch(ctx, t.Name, types.MergePatchType, []byte(mustJSON(patch)), metav1.PatchOptions{})
	case c.Delete != nil:
		var opts metav1.DeleteOptions
		if p := metav1.DeletionPropagation(c.Delete.PropagationPolicy); p != "" {
			opts.PropagationPolicy = &p
		}
		err = res.Delete(ctx, t.Name, opts)
		sc.objects[i].u = nil
	}
	if err != nil && ctx.Err() == nil {
		msg := err.Error()
		if status, ok := err.(apierrors.APIStatus); ok {
			msg = "the API server refused it: " + status.Status().Message
		}
		why := fmt.Errorf("capabilities.reconciledObjects.changes[%d] (%s): %s", n, c, msg)
		subject.Unresolved(subject.SteadyBinding, CurrentSpecReport().FullText(), why)
		Fail(why.Error())
	}
	Expect(err).NotTo(HaveOccurred(), "change %s", c)
	return at
}

// quiet watches the controller's proxies for a write of the run
// (judge.RunWrite: in its namespace or of a cluster-scoped object, Lease
// and Event writes aside) for window, stopping at the first, and records
// the window (judge.QuietWindow); with next, the change after it, which
// quiescent holds to draw a write (call quietThen for that).
func (sc *scenario) quiet(ctx context.Context, window time.Duration) judge.QuietWindow {
	sc.awaitLull(ctx)
	from := time.Now()
	_ = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, window, false, func(context.Context) (bool, error) {
		for _, r := range sc.target.Replicas {
			if slices.ContainsFunc(r.Requests(), func(req proxy.Request) bool {
				return req.Start.After(from) && judge.RunWrite(req, sc.ns, sc.named()...)
			}) {
				return true, nil
			}
		}
		return false, nil
	})
	q := judge.QuietWindow{From: from, To: time.Now(), Window: window.String()}
	judge.FactSteadyQuiet.Set(sc.spec, q)
	return q
}

// awaitLull waits, up to T, until the controller has made no write of
// the run (judge.RunWrite) for W, before a quiet window is watched: the
// objects look settled once they are ready for W, but a busy machine
// spreads the tail of the controller's reconcile (a second status write
// after the first) over more than that, and the window took the tail for
// writes made with nothing changing (the reference stack controller under
// a 1.3-core CPU quota, twice in one corpus run). A controller that keeps
// writing (a hot loop) has no lull: after T its window is watched all the
// same, and quiescent judges what it writes; one that writes every
// 30 s has its lull at once, and its window sees the next write.
func (sc *scenario) awaitLull(ctx context.Context) {
	_ = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, sc.b.SettleWithin.Duration, true, func(context.Context) (bool, error) {
		return time.Since(sc.lastWrite()) >= sc.b.SettleWindow.Duration, nil
	})
}

// lastWrite is when the controller's last write of the run
// (judge.RunWrite), answered or not, ended: now while one is in flight,
// zero when it made none.
func (sc *scenario) lastWrite() time.Time {
	now, named := time.Now(), sc.named()
	var last time.Time
	for _, reqs := range requestLogs(sc.target) {
		for _, req := range reqs {
			if !judge.RunWrite(req, sc.ns, named...) {
				continue
			}
			end := req.End
			if end.IsZero() {
				end = now
			}
			if end.After(last) {
				last = end
			}
		}
	}
	return last
}

// quietThen watches the quiet window (quiet), then applies the first
// change, recorded as the window's next (judge.QuietWindow.Next) when a
// clean run showed that it draws a write (drew): a controller quiet
// because it no longer acts makes none for it within T. A change that
// drew none in the clean run (one of a resource the controller does not
// watch) shows nothing of the kind, and the window is judged alone. It
// returns when the change was made, or zero with no change bound
// (nothing is applied then).
func (sc *scenario) quietThen(ctx context.Context, drew *bool) time.Time {
	q := sc.quiet(ctx, sc.b.QuietWindow.Duration)
	if len(sc.b.Changes) == 0 {
		return time.Time{}
	}
	c := sc.b.Changes[0]
	at := sc.change(ctx, c)
	if drew != nil && *drew {
		q.Next = &judge.QuietProbe{What: c.String(), At: at, Within: sc.b.SettleWithin.String()}
		judge.FactSteadyQuiet.Set(sc.spec, q)
	}
	return at
}

// drew reports whether the i-th change drew a write of the controller
// (judge.RunWrite) before the phase after it ended: from the change's
// settle phase to the next phase's start, or now.
func (sc *scenario) drew(i int) bool {
	phases := sc.phases[judge.FactSteadySettle]
	// Phase 0 is the objects' application; phase i+1 the i-th change's.
	if i+1 >= len(phases) {
		return false
	}
	from, to := phases[i+1].Since, time.Now()
	if i+2 < len(phases) {
		to = phases[i+2].Since
	}
	for _, r := range sc.target.Replicas {
		if slices.ContainsFunc(r.Requests(), func(req proxy.Request) bool {
			return req.Start.After(from) && req.Start.Before(to) && judge.RunWrite(req, sc.ns, sc.named()...)
		}) {
			return true
		}
	}
	return false
}

// afterQuiet is the window a faulted or restarted run is watched for once
// it ended settled: the binding's quiet window, at most AfterFaultQuiet
// (a controller that loops after a fault writes often; the first clean
// run's full window catches the slow ones).
func (sc *scenario) afterQuiet() time.Duration {
	return min(sc.b.QuietWindow.Duration, AfterFaultQuiet)
}

// AfterFaultQuiet is the longest quiet window a run that settled again
// after its faults is watched for.
const AfterFaultQuiet = 5 * time.Second

// deleteAll deletes the objects left and waits until leaves-nothing-behind
// has held, and the controller has written nothing, for W, or its T
// has passed.
func (sc *scenario) deleteAll(ctx context.Context) {
	at := time.Now()
	// In the background, as kubectl deletes: the API server's default
	// for batch/v1 Jobs orphans their pods (for backward compatibility),
	// which would leave what they owned behind by the deletion's choice,
	// not the controller's.
	background := metav1.DeletePropagationBackground
	for _, o := range sc.objects {
		if o.u == nil {
			continue
		}
		err := sc.resource(o).Delete(ctx, o.u.GetName(), metav1.DeleteOptions{PropagationPolicy: &background})
		if apierrors.IsNotFound(err) {
			// Gone with another already: the API server deletes a
			// Service's Endpoints with the Service.
			continue
		}
		Expect(err).NotTo(HaveOccurred(), "delete %s %s", o.u.GetKind(), o.u.GetName())
	}
	judge.FactSteadyDeleted.Set(sc.spec, judge.Deletion{Applied: sc.applied, At: at, Within: sc.b.GoneWithin.String()})
	deadline := at.Add(sc.b.GoneWithin.Duration)
	// Until nothing has been left, and the controller has written
	// nothing of the run, for W, or the deadline: leaves-nothing-behind
	// judges which. Not at the first moment nothing is left: a write
	// still in flight may bring an object back after it (the stack
	// controller's resurrect-on-delete applies its mirror again 50 ms
	// after it released its finalizer; on a busy machine a poll fell in
	// between, ended the evidence, and the defect held, and under a CPU
	// quota the apply took longer than W to be answered).
	//
	// It looks when the evidence may have grown (a history's event, a
	// replica's request begun or answered), when a window may have
	// completed, or at the deadline, and at most every recheck: not on a
	// clock while nothing changes (a 250 ms poll took a full snapshot
	// each time, a tenth of a hunt's suite CPU). The judge runs again only
	// on evidence that grew: on the same, it gives the same verdict.
	var (
		gone   time.Time
		judged string // the extent of the evidence last judged
		left   error  // and its verdict
	)
	w := sc.b.SettleWindow.Duration
	for {
		// Taken before the evidence is read: what changes after the
		// read closes one of them.
		wake := []reflect.SelectCase{{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())}}
		for _, r := range sc.target.Replicas {
			if r.Proxy != nil {
				wake = append(wake, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(r.Proxy.Logged())})
			}
		}
		sc.follow(ctx)
		for _, h := range sc.histories {
			wake = append(wake, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(h.Changed())})
		}
		looked := time.Now()
		e := sc.spec.Evidence().Snapshot()
		if x := e.Extent(); x != judged {
			judged, left = x, judge.Offline[leavesID](e)
		}
		switch err := left; {
		case err != nil:
			gone = time.Time{}
		case gone.IsZero():
			gone = time.Now()
		}
		last := sc.lastWrite()
		now := time.Now()
		if (!gone.IsZero() && now.Sub(gone) >= w && now.Sub(last) >= w) || !now.Before(deadline) {
			return
		}
		// Nothing to look at before both windows may have completed,
		// unless the evidence changes first.
		next := deadline
		if done := later(gone, last).Add(w); !gone.IsZero() && done.Before(next) {
			next = done
		}
		timer := time.NewTimer(time.Until(next))
		chosen, _, _ := reflect.Select(append(wake, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(timer.C)}))
		timer.Stop()
		if chosen == 0 {
			return
		}
		// A burst of events (a deletion's cascade) is looked at once.
		if d := recheck - time.Since(looked); d > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(d):
			}
		}
	}
}

// recheck is the least time between two looks of deleteAll at the
// evidence: a cascade of deletions is one look, not one per event.
const recheck = 250 * time.Millisecond

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// cleanRuns is what this suite run's fault-free runs of the subject leave
// the specs after them. The suite's specs share one, in the order they
// run; the first clean run starts it afresh.
type cleanRuns struct {
	// ends are their end states, the reference each faulted run is
	// compared with: the same-end-state and no-churn judges read them
	// from the faulted spec's evidence (judge.FactSteadyReferences).
	ends []*judge.EndState
	// firstDrew says whether the first clean run's first change drew a
	// write of the controller (nil: no such run in this suite run, or no
	// change): only a change that drew one in a clean run shows, after
	// the second clean run's quiet window, that the controller still
	// acts.
	firstDrew *bool
}

// run applies the objects and then each change once the state has
// settled, stopping at a phase that does not settle, and reports whether
// the last one did.
func (sc *scenario) run(ctx context.Context) bool {
	sc.apply(ctx)
	return sc.changes(ctx, sc.settle(ctx, judge.FactSteadySettle, "the objects were applied", sc.applied), 0)
}

// changes applies each change from the from-th on, once the state has
// settled (settled says whether it has now), and reports whether the last
// phase settled.
func (sc *scenario) changes(ctx context.Context, settled bool, from int) bool {
	for _, c := range sc.b.Changes[from:] {
		if !settled {
			break
		}
		at := sc.change(ctx, c)
		settled = sc.settle(ctx, judge.FactSteadySettle, c.String(), at)
	}
	return settled
}

// end records the run's end state as of now (judge.FactSteadyEnd).
func (sc *scenario) end(ctx context.Context) {
	sc.follow(ctx)
	judge.FactSteadyEnd.Set(sc.spec, judge.EndMark{Applied: sc.applied, At: time.Now(), Objects: sc.live(), Namespace: sc.ns, Made: sc.made, Changes: len(sc.b.Changes)})
}

// keepReference takes a fault-free run's end state (end) as a reference
// of this suite run, kept in clean. A run that did not settle is kept as
// one that did not: the faulted runs then say so, and compare nothing.
func (sc *scenario) keepReference(ctx context.Context, settled bool, clean *cleanRuns) {
	sc.end(ctx)
	ref, err := judge.EndStateOf(sc.spec.Evidence().Snapshot())
	if err != nil {
		fmt.Fprintf(GinkgoWriter, "no reference end state from this run: %v\n", err)
		return
	}
	if !settled && ref.NotReady == "" {
		ref.NotReady = "a phase did not settle within T+W"
	}
	clean.ends = append(clean.ends, ref)
}

// awaitStatuses waits, up to T from since, until every object of a kind
// that refs (the clean runs so far: the first, for the second clean run)
// ended with a status has one (judge.StatusOwed). kstatus calls an object
// with no status ready, so a slow controller's objects looked settled
// for W before it wrote their first status (the reference stack
// controller, 12 clusters on 2 cores: its first reconcile took 2.6 s),
// and the quiet window took that first write for one made with nothing
// changing. It only waits: nothing is recorded and settles is judged as
// before; a controller that writes no status by then is watched all the
// same, and quiescent judges what it writes.
func (sc *scenario) awaitStatuses(ctx context.Context, refs []*judge.EndState, since time.Time) {
	var settled []*judge.EndState
	for _, r := range refs {
		if r.NotReady == "" {
			settled = append(settled, r)
		}
	}
	owed := judge.StatusOwed(settled)
	if len(settled) == 0 || len(owed) == 0 {
		return
	}
	match := judge.AllReady(sc.live(), judge.WithStatusOwed(sc.overrides, owed))
	var why string
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, max(time.Until(since.Add(sc.b.SettleWithin.Duration)), 0), true, func(context.Context) (bool, error) {
		var ok bool
		ok, why = match(sc.source().StateAt(time.Now()))
		return ok, nil
	})
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(GinkgoWriter, "the objects looked settled without the statuses the first clean run ended with, and still did T after they were applied (%s): the quiet window is watched all the same\n", why)
	}
}

// compareWith records refs, the fault-free runs' end states, and the
// subject's ignore paths for the faulted run's judges
// (judge.FactSteadyReferences, FactSteadyIgnore), with the kinds they
// teach are owed a status (judge.StatusOwed, FactSteadyStatusOwed): from
// the phase after the last change on, an object of such a kind is not
// ready without one, live as for the judges. Call it before the objects
// are applied.
func (sc *scenario) compareWith(refs []*judge.EndState) {
	sc.refs = refs
	if len(refs) > 0 {
		judge.FactSteadyReferences.Set(sc.spec, refs)
		if sc.owed = judge.StatusOwed(refs); len(sc.owed) > 0 {
			judge.FactSteadyStatusOwed.Set(sc.spec, sc.owed)
		}
		if sc.owedObjects = judge.ObjectsOwed(refs); len(sc.owedObjects) > 0 {
			judge.FactSteadyObjectsOwed.Set(sc.spec, sc.owedObjects)
		}
	}
	if len(sc.b.Ignore) > 0 {
		judge.FactSteadyIgnore.Set(sc.spec, sc.b.Ignore)
	}
}

// wroteSince waits, within T of since, until the controller has made a
// write of the run (judge.RunWrite) begun after since.
func (sc *scenario) wroteSince(ctx context.Context, since time.Time) {
	_ = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Until(since.Add(sc.b.SettleWithin.Duration)), true, func(context.Context) (bool, error) {
		for _, r := range sc.target.Replicas {
			if slices.ContainsFunc(r.Requests(), func(req proxy.Request) bool {
				return req.Start.After(since) && judge.RunWrite(req, sc.ns, sc.named()...)
			}) {
				return true, nil
			}
		}
		return false, nil
	})
}

// firstCreate waits, within T, for the controller's first answered
// create (a create, or a server-side apply that made an object) of a
// resource of want not yet covered, of the run's (judge.RunWrite), and
// returns the replica that made it.
func (sc *scenario) firstCreate(ctx context.Context, want []string, covered map[string]bool) (string, error) {
	var who string
	err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, sc.b.SettleWithin.Duration, true, func(context.Context) (bool, error) {
		for _, r := range sc.target.Replicas {
			if slices.ContainsFunc(r.Requests(), func(req proxy.Request) bool {
				return req.Created() && slices.Contains(want, req.GroupResource()) && !covered[req.GroupResource()] && judge.RunWrite(req, sc.ns, sc.named()...)
			}) {
				who = r.Identity
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return "", fmt.Errorf("the controller created none of %s within %s", strings.Join(slices.DeleteFunc(slices.Clone(want), func(r string) bool { return covered[r] }), ", "), sc.b.SettleWithin)
	}
	return who, nil
}

// createdBefore are the resources of want the controller had created
// (answered) by t.
func (sc *scenario) createdBefore(want []string, t time.Time) []string {
	var out []string
	for _, r := range sc.target.Replicas {
		for _, req := range r.Requests() {
			if req.Created() && !req.End.After(t) && slices.Contains(want, req.GroupResource()) && judge.RunWrite(req, sc.ns, sc.named()...) && !slices.Contains(out, req.GroupResource()) {
				out = append(out, req.GroupResource())
			}
		}
	}
	return out
}

// madeUnanswered are the resources of want, not covered, of which a create
// of the run that the restart ending at end cut off (no answer: Code 0;
// one sent as the kill was under way too) made its object all the same:
// an object of the name its body gave exists, and no answered create
// made it (by uid). The restart followed that create, as the premise
// (restarted-after-first-creates) counts it: the controller restarted
// finds the object, and a create of it it makes again owes no other
// restart, nor one to wait for when it makes none.
func (sc *scenario) madeUnanswered(ctx context.Context, want []string, covered map[string]bool, end time.Time) []string {
	answered := map[types.UID]bool{}
	for _, r := range sc.target.Replicas {
		for _, req := range r.Requests() {
			if req.Created() && req.Object != nil {
				answered[types.UID(req.Object.UID)] = true
			}
		}
	}
	var out []string
	for _, r := range sc.target.Replicas {
		for _, req := range r.Requests() {
			res := req.GroupResource()
			if req.Verb != "create" || req.Code != 0 || req.Subresource != "" || req.Object == nil || req.Object.Name == "" || req.Start.After(end) ||
				!slices.Contains(want, res) || covered[res] || slices.Contains(out, res) || !judge.RunWrite(req, sc.ns, sc.named()...) {
				continue
			}
			gvr, err := sc.mapper.ResourceFor(schema.ParseGroupResource(res).WithVersion(""))
			if err != nil {
				continue
			}
			var client dynamic.ResourceInterface = sc.dyn.Resource(gvr)
			if req.Namespace != "" {
				client = sc.dyn.Resource(gvr).Namespace(req.Namespace)
			}
			if o, err := client.Get(ctx, req.Object.Name, metav1.GetOptions{}); err == nil && !answered[o.GetUID()] {
				out = append(out, res)
			}
		}
	}
	return out
}

// firstWrite waits for the controller's first answered write of the run
// (judge.RunWrite: in its namespace or of a cluster-scoped object, Lease
// and Event writes aside), within T: one in another namespace (the
// garbage collector cleaning up after an earlier spec) is not the run's.
func (sc *scenario) firstWrite(ctx context.Context) (string, error) {
	var who string
	err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, sc.b.SettleWithin.Duration, true, func(context.Context) (bool, error) {
		for _, r := range sc.target.Replicas {
			if slices.ContainsFunc(r.Requests(), func(req proxy.Request) bool {
				return judge.RunWrite(req, sc.ns, sc.named()...) && req.Code >= 200 && req.Code < 300 && sc.storedWrite(req)
			}) {
				who = r.Identity
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return "", fmt.Errorf("the controller made no write within %s of the objects being applied", sc.b.SettleWithin)
	}
	return who, nil
}

// storedWrite reports whether req writes an object the API server keeps:
// an access review the controller makes at start is answered and never
// stored, and is no write of an object (judge.FactSteadyUnstored). What
// discovery cannot tell is taken as stored.
func (sc *scenario) storedWrite(req proxy.Request) bool {
	gvr := schema.GroupVersionResource{Group: req.Group, Version: req.Version, Resource: req.Resource}
	if v, ok := sc.storedCache[gvr]; ok {
		return v
	}
	stored, err := sc.stored(gvr)
	if err != nil {
		return true
	}
	if sc.storedCache == nil {
		sc.storedCache = map[schema.GroupVersionResource]bool{}
	}
	sc.storedCache[gvr] = stored
	return stored
}

// gcController is kube-controller-manager's garbage collector.
const gcController = "garbage-collector-controller"
