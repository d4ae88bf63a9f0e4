package explore

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/chaos/schedule"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/subjectfile"
	"github.com/steadystate-dev/steadystate/suites/reconcile"
	"github.com/steadystate-dev/steadystate/suites/subject"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// references is how many there are: what differs between two is masked
// in the comparison, as the reconcile suite does.
const references = 2

var (
	// FactSteadyUnderSchedule are the phases a schedule's change steps
	// waited on, under its faults: evidence
	// of when each change was made, judged by no property (recovers and
	// settles judge the phases once the faults are recovered).
	FactSteadyUnderSchedule = judge.PhaseFact{Name: "explore/steady-under-schedule"}
	// FactSteadyUsed is what the controller was seen to use in the first
	// fault-free reference run beyond the roles objects and owned
	// (steadyUse, as JSON): the resources and requests a schedule's
	// resources and triggers were drawn among beside the roles, and the
	// role requests it did not make, on which no trigger was drawn. A
	// kept schedule names them literally, so its replay draws nothing.
	FactSteadyUsed = judge.Fact[map[string][]string]{Name: "explore/steady-used"}
)

// endStates are a reconciledObjects exploration's fault-free reference runs'
// end states, made once per exploration run by its first specs and
// recorded in every schedule's evidence (judge.FactSteadyReferences), so
// that a schedule is re-judged offline without the reference runs'.
type endStates struct {
	mu sync.Mutex
	// shared is the folder the run's processes share their reference
	// runs through (shared.go), "" when this process makes them all;
	// awaited says they were read from it, or awaitErr why they could
	// not be: a later schedule does not wait again.
	shared   string
	awaited  bool
	awaitErr error
	// wait bounds the wait for them; zero: sharedWait.
	wait time.Duration
	refs []*judge.EndState
	// use is what the controller used in the first reference run, as
	// its proxies recorded it (controllerUse); announced says whether the
	// run's status said so.
	use       steadyUse
	announced bool
}

// steadyUse is what a controller watched and requested in a run: the
// resources it watched, by name (secrets), and the writes it made, by
// verb and resource (create certificaterequests), each once, sorted.
type steadyUse struct {
	Watched   []string
	Requested []schedule.Trigger
	// Unmade are, beyond the roles (beyond), the role requests
	// (schedule.Requests) the controller did not make: no trigger waits
	// for them.
	Unmade []schedule.Trigger
	// Chains are its writes of each resource from the objects'
	// application on, roles included: what the refused-once pattern
	// counts to aim at the last of them (schedule.Limits.Chains).
	Chains []schedule.Chain `json:",omitempty"`
}

// fact is u as FactSteadyUsed records it: {"watched": ["secrets"],
// "requested": ["create certificaterequests"]}, and "unmade": ["delete
// owned"] when it has any.
func (u steadyUse) fact() map[string][]string {
	requests := func(ts []schedule.Trigger) []string {
		out := []string{}
		for _, t := range ts {
			out = append(out, t.Verb+" "+t.Resource)
		}
		return out
	}
	f := map[string][]string{"watched": append([]string{}, u.Watched...), "requested": requests(u.Requested)}
	if len(u.Unmade) > 0 {
		f["unmade"] = requests(u.Unmade)
	}
	for _, c := range u.Chains {
		f["chains"] = append(f["chains"], fmt.Sprintf("%d writes of %s, the last %s after the application", c.Writes, c.Resource, c.Last))
	}
	return f
}

// empty reports whether u holds nothing to draw by.
func (u steadyUse) empty() bool {
	return len(u.Watched)+len(u.Requested)+len(u.Unmade)+len(u.Chains) == 0
}

// announce sends line as a status line, once per run: what every
// schedule is drawn among is said when the first one starts.
func (r *endStates) announce(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.announced {
		r.announced = true
		testenv.Status(line)
	}
}

func (r *endStates) used(u steadyUse) error {
	if r.shared != "" {
		return writeShared(filepath.Join(r.shared, "use.json"), u)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.use = u
	return nil
}

func (r *endStates) usage() steadyUse {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.use
}

// add adds reference run i's end state.
func (r *endStates) add(i int, es *judge.EndState) error {
	if r.shared != "" {
		return writeShared(sharedFile(r.shared, i, "json"), es)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refs = append(r.refs, es)
	return nil
}

// ended says reference run i's spec ended, however it did: the processes
// that share the run's reference runs wait for each to end.
func (r *endStates) ended(i int) error {
	if r.shared == "" {
		return nil
	}
	return writeShared(sharedFile(r.shared, i, "done"), struct{}{})
}

// await reads the shared reference runs once all have ended (awaitShared);
// nothing to do when this process makes them all.
func (r *endStates) await(ctx context.Context) error {
	r.mu.Lock()
	done, err := r.shared == "" || r.awaited, r.awaitErr
	r.mu.Unlock()
	if done || err != nil {
		return err
	}
	within := r.wait
	if within == 0 {
		within = sharedWait
	}
	refs, use, err := awaitShared(ctx, r.shared, within)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		if ctx.Err() == nil {
			r.awaitErr = err
		}
		return err
	}
	r.refs, r.use, r.awaited = refs, use, true
	return nil
}

func (r *endStates) all() []*judge.EndState {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.refs)
}

// referenceJudges are what fault-free reference run i is judged on: the
// reconcile suite's two clean runs, each on settling, the first also
// on its deletion.
func referenceJudges(i int) []verdict.Property {
	judged := []verdict.Property{catalog.SteadySettles, catalog.SteadyNoFinalizer, catalog.SteadyActs, catalog.SteadyNoPanic}
	if i == 0 {
		judged = append(judged, catalog.SteadyLeavesNothing)
	}
	return judged
}

// referenceRun is fault-free reference run i in namespace ns: the
// binding's objects applied and each change once the state has settled;
// its end state is added to refs, then (the first) its objects deleted.
func referenceRun(ctx context.Context, spec *testenv.Spec, i int, ns string, refs *endStates) {
	sc := reconcile.StartScenario(ctx, spec, ns)
	ref, err := sc.Reference(ctx, sc.Run(ctx))
	Expect(err).NotTo(HaveOccurred())
	Expect(refs.add(i, ref)).To(Succeed(), "keeping the reference run's end state")
	if i == 0 {
		// What it used up to its end state, before the objects'
		// deletion: what a schedule's faults and triggers, which come
		// before it, can meet.
		e := spec.Evidence().Snapshot()
		var applied time.Time
		if phases, ok := judge.FactSteadySettle.Lookup(e); ok && len(phases) > 0 {
			applied = phases[0].Since
		}
		Expect(refs.used(controllerUse(e.Proxies, applied))).To(Succeed(), "keeping what the controller used")
		sc.DeleteAll(ctx)
	}
	var checks []oracle.Check
	for _, p := range referenceJudges(i) {
		checks = append(checks, spec.Judged(p))
	}
	spec.Verify(checks...)
}

// controllerUse is what the controller's requests in a run's proxy logs
// watched and wrote, Lease and Event requests aside (its election, its
// events: noise no finding needs): the resources of its watches, the
// verb and resource of each write a trigger can wait for (a status
// update is an update of the resource, as a trigger matches it), and
// its chains of writes of each resource from applied on, as a refusal
// counts them (the proxy's write verbs; zero applied: from its first
// write).
func controllerUse(logs map[string]evidence.ProxyLog, applied time.Time) steadyUse {
	var u steadyUse
	chains := map[string]*schedule.Chain{}
	counted := func(req proxy.Request) bool {
		return req.IsResource() && req.Resource != "leases" && req.Resource != "events" && schedule.Uses(schedule.Steady, req.Resource)
	}
	if applied.IsZero() {
		for _, l := range logs {
			for _, req := range l.Requests {
				if counted(req) && slices.Contains(proxy.WriteVerbs, req.Verb) && (applied.IsZero() || req.Start.Before(applied)) {
					applied = req.Start
				}
			}
		}
	}
	for _, l := range logs {
		for _, req := range l.Requests {
			if !counted(req) {
				continue
			}
			switch {
			case req.Verb == "watch":
				u.Watched = append(u.Watched, req.Resource)
			case slices.Contains(schedule.Verbs, req.Verb):
				u.Requested = append(u.Requested, schedule.Trigger{Verb: req.Verb, Resource: req.Resource})
			}
			if !slices.Contains(proxy.WriteVerbs, req.Verb) || req.Start.Before(applied) {
				continue
			}
			c := chains[req.Resource]
			if c == nil {
				c = &schedule.Chain{Resource: req.Resource}
				chains[req.Resource] = c
			}
			c.Writes++
			c.Last = max(c.Last, req.Start.Sub(applied).Round(time.Millisecond))
		}
	}
	for _, res := range slices.Sorted(maps.Keys(chains)) {
		u.Chains = append(u.Chains, *chains[res])
	}
	slices.Sort(u.Watched)
	slices.SortFunc(u.Requested, func(a, b schedule.Trigger) int {
		return cmp.Or(cmp.Compare(a.Resource, b.Resource), cmp.Compare(a.Verb, b.Verb))
	})
	u.Watched, u.Requested = slices.Compact(u.Watched), slices.Compact(u.Requested)
	return u
}

// beyond is u less what the roles name: the objects' resource and the
// owned one are watched as the roles objects and owned, and the role
// requests (schedule.Requests) are made of them; with the role requests
// u did not make as Unmade (none when u holds nothing: no run's use to go
// by). resource maps a role to its resource.
func (u steadyUse) beyond(resource func(role string) string) steadyUse {
	roles := []string{resource("objects"), resource("owned")}
	var out steadyUse
	if len(u.Watched)+len(u.Requested) > 0 {
		for _, r := range schedule.Requests[schedule.Steady] {
			if !slices.ContainsFunc(u.Requested, func(t schedule.Trigger) bool { return t.Verb == r.Verb && t.Resource == resource(r.Resource) }) {
				out.Unmade = append(out.Unmade, r)
			}
		}
	}
	for _, res := range u.Watched {
		if !slices.Contains(roles, res) {
			out.Watched = append(out.Watched, res)
		}
	}
	for _, t := range u.Requested {
		if !slices.ContainsFunc(schedule.Requests[schedule.Steady], func(r schedule.Trigger) bool {
			return r.Verb == t.Verb && resource(r.Resource) == t.Resource
		}) {
			out.Requested = append(out.Requested, t)
		}
	}
	// A chain of a role's resource is named by the role, as the other
	// steps name it (one combination of fault and resource, not two).
	for _, c := range u.Chains {
		for _, role := range []string{"objects", "owned"} {
			if resource(role) == c.Resource {
				c.Resource = role
				break
			}
		}
		out.Chains = append(out.Chains, c)
	}
	return out
}

// steady drives any controller by its reconciledObjects binding, as the
// reconcile suite does: its objects are applied when the schedule
// starts (its clock runs from the apply, so faults meet the controller's
// first reconciles; no steady state is assumed before), and its changes
// are applied one at a time, each once the state has settled, as the
// reference runs applied them: a change step applies the next one, and
// the changes no step applied are applied once the faults are recovered.
type steady struct {
	spec *testenv.Spec
	sc   *reconcile.Scenario
	refs []*judge.EndState
	// owned is the resource of what the objects own directly in the
	// first reference run ("" when they owned nothing).
	owned string
	// pods says whether the objects owned pods (transitively) in the
	// first reference run: only then is a pod deletion drawn.
	pods bool
	// used is what the controller watched and wrote in the first
	// reference run beyond the roles: a schedule's faults and triggers
	// are drawn among it too.
	used steadyUse
	// changing serialises change steps: each waits for the state to
	// settle, then applies the next change.
	changing sync.Mutex
	// mu guards the phase: the changes applied, the last phase and
	// when it began, whether it settled, and whether a phase did not.
	mu sync.Mutex
	// drawn says a pod deletion step was due; deleted are the pods one
	// deleted.
	drawn   bool
	deleted []string
	applied int
	what    string
	since   time.Time
	settled bool
	stuck   string
}

func startSteady(ctx context.Context, spec *testenv.Spec, ns string, refs *endStates) *steady {
	d := &steady{spec: spec, sc: reconcile.StartScenario(ctx, spec, ns), refs: refs.all()}
	if len(d.refs) > 0 {
		d.owned, d.pods = ownedResource(d.refs[0]), ownsPods(d.refs[0])
	}
	d.used = refs.usage().beyond(d.resource)
	if !d.used.empty() {
		FactSteadyUsed.Set(d.spec, d.used.fact())
		refs.announce("faults and triggers are drawn among the roles and what the controller used beyond them in the first reference run, no trigger on a role request it did not make (unmade): " + FactSteadyUsed.Text(d.used.fact()))
	}
	d.sc.CompareWith(d.refs)
	d.what, d.since = "the objects were applied", d.sc.Apply(ctx)
	return d
}

// ownedResource is the resource (plural, without its group) most of what
// ref's applied objects own directly is of; "" when they own nothing.
func ownedResource(ref *judge.EndState) string {
	uids := map[string]bool{}
	for _, k := range ref.Roots {
		if uid, ok := metadataField(ref.Objects[k], "uid").(string); ok {
			uids[uid] = true
		}
	}
	count := map[string]int{}
	for k, o := range ref.Objects {
		if slices.Contains(ref.Roots, k) {
			continue
		}
		refs, _ := metadataField(o, "ownerReferences").([]any)
		for _, r := range refs {
			if m, ok := r.(map[string]any); ok && uids[fmt.Sprint(m["uid"])] {
				count[keyResource(k)]++
				break
			}
		}
	}
	best := ""
	for _, res := range slices.Sorted(maps.Keys(count)) {
		if best == "" || count[res] > count[best] {
			best = res
		}
	}
	return best
}

// ownsPods reports whether ref's applied objects own a pod
// (transitively: ref.Objects are what they own).
func ownsPods(ref *judge.EndState) bool {
	for k := range ref.Objects {
		if keyResource(k) == "pods" && !slices.Contains(ref.Roots, k) {
			return true
		}
	}
	return false
}

func metadataField(o map[string]any, field string) any {
	m, _ := o["metadata"].(map[string]any)
	return m[field]
}

// keyResource is the resource, without its group, of a joined key of
// the steady-state histories (steady/replicasets.apps:ns/name).
func keyResource(key string) string {
	h, _, _ := strings.Cut(key, ":")
	res, _, _ := strings.Cut(strings.TrimPrefix(h, judge.SteadyHistory("")), ".")
	return res
}

func (d *steady) target() chaos.Target { return d.sc.Target() }

// limits leave out a change step when the binding has no change, and a
// pod deletion when the objects own no pod; they draw among what the
// controller used in the first reference run beyond the roles, too.
func (d *steady) limits() schedule.Limits {
	l := steadyLimits(len(d.target().Replicas), d.target().Etcd != "", len(d.sc.Binding().Changes) > 0, d.pods)
	l.Watched, l.Requested, l.Unmade, l.Chains = d.used.Watched, d.used.Requested, d.used.Unmade, d.used.Chains
	return l
}

// steadyLimits are the limits of a subject of replicas replicas, etcd in
// reach or not, with changes bound or not, whose objects own pods or not.
func steadyLimits(replicas int, etcd, changes, pods bool) schedule.Limits {
	l := schedule.DefaultLimits
	l.Replicas = replicas
	if !etcd {
		l.Without = append(l.Without, "etcd-compaction")
	}
	if !changes {
		l.Without = append(l.Without, "change")
	}
	if !pods {
		l.Without = append(l.Without, "pod-deletion")
	}
	return l
}

// resource: objects is the applied objects' resource; owned what they
// own directly in the reference run, or, when they own nothing, theirs.
func (d *steady) resource(role string) string {
	switch role {
	case "objects":
		return d.sc.ObjectsResource()
	case "owned":
		if d.owned != "" {
			return d.owned
		}
		return d.sc.ObjectsResource()
	}
	return role
}

func (d *steady) replicas(sel string) []string { return pick(sel, identities(d.target()), "") }

// fault: a pod deletion takes the objects' newest running pod, at once
// (another party's deletion, as a node's loss would make it); the
// controller owes its replacement (Scenario.DeletedOwn), and the recovery
// allows it (recoverWithin). With no pod of theirs now, it is not done.
func (d *steady) fault(_ context.Context, st schedule.Step) (chaos.Fault, error) {
	if st.Fault != "pod-deletion" {
		return nil, nil
	}
	pods := d.sc.OwnedPods()
	if len(pods) == 0 {
		return nil, noTarget("the objects own no pod now")
	}
	d.mu.Lock()
	d.drawn = true
	d.mu.Unlock()
	return ownPodDeletion{PodDeletion: chaos.PodDeletion{Namespace: d.sc.Namespace(), Selector: "!" + subject.PodLabel, Count: 1, Names: pods[:1]}, d: d}, nil
}

// ownPodDeletion is a pod deletion of the controller's own pods, recorded
// as the harness's deletion of them (Scenario.DeletedOwn).
type ownPodDeletion struct {
	chaos.PodDeletion
	d *steady
}

// Inject deletes the pod and records what it deleted.
func (f ownPodDeletion) Inject(ctx context.Context, t chaos.Target) (chaos.Injection, error) {
	inj, err := f.PodDeletion.Inject(ctx, t)
	if names := inj.Detail["deleted"]; names != "" {
		f.d.sc.DeletedOwn(strings.Split(names, ","), inj.Start)
		f.d.mu.Lock()
		f.d.deleted = append(f.d.deleted, strings.Split(names, ",")...)
		f.d.mu.Unlock()
	}
	return inj, err
}

// samePodsDeleted says why same-end-state is not bound once a schedule's
// pod deletion took pods of the controller's own: what a deleted pod owes
// is the controller's to say, and the binding does not (a ReplicaSet's
// replacement leaves its end state as the reference's, a Job counts the
// pod failed in its status), so an end state unlike the reference runs'
// would be no finding. The rest is judged: the replacement is owed
// (no-churn), the state must be ready again (recovers).
func samePodsDeleted(pods []string) string {
	return fmt.Sprintf("the schedule deleted pods of the controller's own (%s), and the binding does not say what a deleted pod owes its owner's end state (a Job counts it failed): it is not compared with the reference runs', which deleted none", strings.Join(pods, ", "))
}

// unsettledNotQuiet says why quiescent is not bound when the state did
// not settle again once the faults were recovered: quiescence is owed by
// a settled state only, and no quiet window was watched (recovers, or
// settles after a change, is judged on the settling).
const unsettledNotQuiet = "the state did not settle again once the faults were recovered (or after a change applied then): quiescence is owed by a settled state only, and no quiet window was watched"

// recoverWithin is how long the state may take to settle once the
// faults are recovered: T, or after a pod deletion at least the
// replacement bound of the lost-events suite (a controller may back off
// before it replaces a pod, as the Job controller does).
func recoverWithin(settleWithin time.Duration, deleted bool) time.Duration {
	if deleted {
		return max(settleWithin, subjectfile.DefaultReplaceWithin)
	}
	return settleWithin
}

// workload: a change step waits until the state has settled since the
// last phase began (the objects' apply or the last change: recorded under
// FactSteadyUnderSchedule), then applies the binding's next change. One
// left with no change to apply, or after a phase that did not settle
// within T+W, is not done.
func (d *steady) workload(ctx context.Context, st schedule.Step) error {
	if st.Workload != "change" {
		return fmt.Errorf("%s is not a steady-state binding's step", st.Workload)
	}
	d.changing.Lock()
	defer d.changing.Unlock()
	d.mu.Lock()
	applied, what, since, settled, stuck := d.applied, d.what, d.since, d.settled, d.stuck
	d.mu.Unlock()
	changes := d.sc.Binding().Changes
	switch {
	case applied >= len(changes):
		return noTarget("every change of capabilities.reconciledObjects.changes was applied already")
	case stuck != "":
		return noTarget(stuck)
	}
	if !settled {
		// A replica a process fault stopped starts again only after the
		// steps: the state cannot settle before, and waiting T+W for it
		// would hold the schedule's recovery back by as much.
		running, stopped, cancel := whileRunning(ctx, d.target())
		ok := !stopped() && d.sc.Settle(running, FactSteadyUnderSchedule, what, since)
		cancel()
		if !ok {
			why := fmt.Sprintf("the state did not settle within T+W after %s: no further change was applied under the schedule", what)
			if stopped() {
				why = fmt.Sprintf("a process fault stopped the controller before the state settled after %s: no further change was applied under the schedule", what)
			}
			d.mu.Lock()
			d.stuck = why
			d.mu.Unlock()
			return noTarget(why)
		}
	}
	c := changes[applied]
	at := d.sc.Change(ctx, c)
	d.mu.Lock()
	d.applied, d.what, d.since, d.settled = applied+1, c.String(), at, false
	d.mu.Unlock()
	return nil
}

// whileRunning is ctx, ended as soon as a replica of t has exited (a
// process fault stopped it); stopped reports whether one has. A replica
// its kubelet restarts in place (a chaos.Follower) does not count: it
// comes back by itself, so the state can settle under the steps.
func whileRunning(ctx context.Context, t chaos.Target) (running context.Context, stopped func() bool, cancel context.CancelFunc) {
	running, cancel = context.WithCancel(ctx)
	var hit atomic.Bool
	anyExited := func(ctx context.Context) bool {
		for _, r := range t.Replicas {
			if _, follows := r.Host.(chaos.Follower); follows {
				continue
			}
			if r.Host != nil && r.Host.Exited(ctx) {
				hit.Store(true)
				return true
			}
		}
		return false
	}
	anyExited(ctx)
	go func() {
		_ = wait.PollUntilContextCancel(running, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			if anyExited(ctx) {
				cancel()
				return true, nil
			}
			return false, nil
		})
	}()
	return running, hit.Load, cancel
}

func (d *steady) phases() []string { return []string{"applied", "changed"} }

// phase: the objects applied and no change yet, or a change applied.
func (d *steady) phase() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.applied == 0 {
		return "applied"
	}
	return "changed"
}

// judge: once the faults are recovered the state settles within T (after
// a pod deletion, at least the replacement bound: recoverWithin), for W
// (recovers); the changes no step applied are applied, each once the
// state has settled (settles; not bound when the recovery did not
// settle, so none was made); the end state is then compared with the
// reference runs' (same-end-state, not bound once a pod deletion took a
// pod of the controller's own; no-churn), and the objects are deleted
// (leaves-nothing-behind). Between the two, a state that settled again
// is watched for the quiet window, with nothing changing, as the
// reconcile suite watches its first clean run's: the controller owes
// no write of the run then, Lease and Event writes aside (quiescent); a
// state that did not settle owes none, and quiescent is not bound
// (recovers or settles says why). The controller never added a
// finalizer to a deleting object over the whole run. No-churn is not
// bound when no fault acted.
func (d *steady) judge(ctx context.Context, recovered time.Time) {
	d.changing.Lock()
	defer d.changing.Unlock()
	d.mu.Lock()
	applied, drawn, deleted := d.applied, d.drawn, slices.Clone(d.deleted)
	d.mu.Unlock()
	changes := d.sc.Binding().Changes
	within := recoverWithin(d.sc.Binding().SettleWithin.Duration, drawn)
	recoveredSettled := d.sc.SettleWithin(ctx, judge.FactSteadyRecover, "the faults were recovered", recovered, within)
	settled := d.sc.Changes(ctx, recoveredSettled, applied)
	d.sc.End(ctx)
	d.sc.RecordDisturbed()
	checks := []oracle.Check{d.spec.Judged(catalog.SteadyRecovers)}
	// Whether quiescence is owed is decided from the evidence, as
	// validate re-makes it (judge.OfflineNotBound: among others, a watch
	// the recovery's settle found not back, judge.FactSteadyStale); the
	// wait's own verdict stands when the evidence does not tell.
	why := judge.QuiescentUnbound(d.spec.Evidence().Snapshot())
	if why == "" && !settled {
		why = unsettledNotQuiet
	}
	if why == "" {
		d.sc.Quiet(ctx)
		checks = append(checks, d.spec.Judged(catalog.SteadyQuiescent))
	} else {
		d.spec.NotBound(catalog.SteadyQuiescent, why)
	}
	d.sc.DeleteAll(ctx)
	switch {
	case applied < len(changes) && !recoveredSettled:
		d.spec.NotBound(catalog.SteadySettles, "the state did not settle after the faults, so the changes left were not made (recovers judges that): none settled or failed to")
	case applied < len(changes):
		checks = append(checks, d.spec.Judged(catalog.SteadySettles))
	case len(changes) == 0:
		d.spec.NotBound(catalog.SteadySettles, "capabilities.reconciledObjects.changes binds no change to settle after, once the faults were recovered")
	default:
		d.spec.NotBound(catalog.SteadySettles, "the schedule's steps applied every change before the faults were recovered: none was left to settle after them (recovers judges the state after the faults)")
	}
	switch why := judge.SameEndStateUnbound(d.spec.Evidence().Snapshot()); {
	case len(deleted) > 0:
		d.spec.NotBound(catalog.SteadySameEndState, samePodsDeleted(deleted))
	case why != "":
		d.spec.NotBound(catalog.SteadySameEndState, why)
	default:
		checks = append(checks, d.spec.Judged(catalog.SteadySameEndState))
	}
	// No-churn counts from the first fault: a schedule none of whose
	// faults acted (their triggers never came) has none.
	if len(d.spec.Evidence().Snapshot().Faults) > 0 {
		checks = append(checks, d.spec.Judged(catalog.SteadyNoChurn))
	} else {
		d.spec.NotBound(catalog.SteadyNoChurn, "no fault step of the schedule acted (each was not done): there is no during or after a fault to compare")
	}
	// Every wait is over (settled, quiet, deleted): the evidence is
	// final, and each property is judged once on it.
	verifyFinal(d.spec, append(checks,
		d.spec.Judged(catalog.SteadyNoFinalizer),
		d.spec.Judged(catalog.SteadyLeavesNothing),
		d.spec.Judged(catalog.SteadyNoPanic),
	)...)
}
