package judge

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// The reconcile suite's evidence. Each recorded resource of the spec's
// namespace is one history named SteadyHistory(resource); the facts list
// them, name the objects applied (by their joined keys), say how ready is
// decided, and carry the phases, the quiet window and the deletion the
// judges bound.
var (
	// FactSteadyHistories lists the recorded histories, comma-separated.
	FactSteadyHistories = Fact[Names]{Name: "reconcile/histories"}
	// FactSteadyObjects lists the applied objects' joined keys
	// (SteadyKey), comma-separated: a cluster-scoped object's namespace
	// is "".
	FactSteadyObjects = Fact[Names]{Name: "reconcile/objects"}
	// FactSteadyNamespace is the run's namespace; absent (evidence made
	// before it was recorded), the first namespaced object's.
	FactSteadyNamespace = Fact[string]{Name: "reconcile/namespace"}
	// FactSteadyReadiness is the subject's readiness overrides, as JSON
	// ([]ReadinessOverride); absent, kstatus decides every kind.
	FactSteadyReadiness = Fact[[]ReadinessOverride]{Name: "reconcile/readiness"}
	// FactSteadyStatusOwed is the kinds the reference runs taught are
	// owed a status (StatusOwed), as JSON ([]string): recorded by a
	// faulted run with its references, and applied to its phases after
	// the last change (SettlePhase.Final) and to its end state.
	FactSteadyStatusOwed = Fact[[]string]{Name: "reconcile/status-owed"}
	// FactSteadyObjectsOwed is, by kind, how many objects the reference
	// runs teach the objects owe (ObjectsOwed), as JSON
	// (map[string]int): recorded and applied as FactSteadyStatusOwed is.
	FactSteadyObjectsOwed = Fact[map[string]int]{Name: "reconcile/objects-owed"}
	// FactSteadySettle and FactSteadyRecover are the phases settles and
	// recovers judge, as JSON ([]SettlePhase).
	FactSteadySettle  = PhaseFact{Name: "reconcile/settle"}
	FactSteadyRecover = PhaseFact{Name: "reconcile/recover"}
	// FactSteadyQuiet is the quiet window quiescent judges (QuietWindow).
	FactSteadyQuiet = Fact[QuietWindow]{Name: "reconcile/quiet"}
	// FactSteadyDeleted is the deletion leaves-nothing-behind judges
	// (Deletion).
	FactSteadyDeleted = Fact[Deletion]{Name: "reconcile/deleted"}
	// FactSteadyShared lists what the controller may leave behind by
	// design: kinds, or Kind/name, comma-separated.
	FactSteadyShared = Fact[Names]{Name: "reconcile/shared"}
	// FactSteadyStale is, after faults, what the controller had not
	// watched again within T of their recovery (Stale), when the
	// recovery's settle gave up waiting for it: set only when something
	// was stale.
	FactSteadyStale = Fact[Stale]{Name: "reconcile/stale-watches"}
)

// PhaseFact is a fact of settle phases: FactSteadySettle,
// FactSteadyRecover, or a suite's own.
type PhaseFact = Fact[[]SettlePhase]

// Stale is what a controller had not watched again, after the faults,
// within a bound: each resource a replica watched when the first fault
// began and had no watch open of when the wait ended.
type Stale struct {
	Resources []string `json:"resources"`
	Within    string   `json:"within"`
	// Reconciled are those of Resources the controller reconciles: the
	// objects' own and those of what they own. Not watching them again,
	// it acts on a view that never catches up: it has not recovered. A
	// resource it watched only in passing (an informer begun on demand,
	// one a restarted process does not need) is no such failure.
	// Nil in evidence from before the run told them apart.
	Reconciled []string `json:"reconciled"`
}

// StaleWatches are the resources, each once and sorted, that a replica
// of logs (its requests) had a watch open of at before and none at at. A
// controller whose watch is not back after a partition (client-go's
// reflector waits up to 30 s between failed lists) acts on a stale view:
// it may write what it wrote already, answered 409, until the watch is
// back. That is recovering, not a hot loop.
func StaleWatches(logs map[string][]proxy.Request, before, at time.Time) []string {
	open := func(r proxy.Request, t time.Time) bool {
		return r.Verb == "watch" && !r.Start.After(t) && (r.End.IsZero() || r.End.After(t))
	}
	var out []string
	for _, reqs := range logs {
		was, is := map[string]bool{}, map[string]bool{}
		for _, r := range reqs {
			if open(r, before) {
				was[r.Resource] = true
			}
			if open(r, at) {
				is[r.Resource] = true
			}
		}
		for res := range was {
			if !is[res] {
				out = append(out, res)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// EndedWithTheirProcess is logs (each replica's requests, by identity)
// with every request a process stopped by a fault of faults had open
// (chaos.Injection.StoppedProcess: begun before the fault, open after its
// End by the log) ended at that End. The proxy marks a request ended
// only once it notices its connection closed, and that came 9 ms after
// a restart's End on a loaded machine: the killed process's watches
// looked open at the recovery, so the window W was counted from it,
// before the restarted process had watched anything again, let alone
// acted, and a controller that marks itself Degraded once restarted
// looked recovered for W. logs is left as it is.
func EndedWithTheirProcess(logs map[string][]proxy.Request, faults []chaos.Injection) map[string][]proxy.Request {
	out := maps.Clone(logs)
	for _, f := range faults {
		reqs, ok := out[f.Target]
		if !f.StoppedProcess() || !ok {
			continue
		}
		var ended []proxy.Request // a copy, made at the first change
		for i, r := range reqs {
			if r.Start.Before(f.Start) && (r.End.IsZero() || r.End.After(f.End)) {
				if ended == nil {
					ended = slices.Clone(reqs)
				}
				ended[i].End = f.End
			}
		}
		if ended != nil {
			out[f.Target] = ended
		}
	}
	return out
}

// WatchesBackAt is when every replica of logs watched again each resource
// it watched when the first fault began (before) and not at since (the
// recovery): the latest start of the watches of those resources open at
// at. It is since when none was stale then, and zero when one has no
// watch open at at.
func WatchesBackAt(logs map[string][]proxy.Request, before, since, at time.Time) time.Time {
	back := since
	for id, reqs := range logs {
		for _, res := range StaleWatches(map[string][]proxy.Request{id: reqs}, before, since) {
			var start time.Time
			for _, r := range reqs {
				if r.Verb == "watch" && r.Resource == res && !r.Start.After(at) && (r.End.IsZero() || r.End.After(at)) && r.Start.After(start) {
					start = r.Start
				}
			}
			if start.IsZero() {
				return time.Time{}
			}
			if start.After(back) {
				back = start
			}
		}
	}
	return back
}

// SteadyHistory is the name of the history recording resource (plural,
// with its group but for the core group: configmaps, deployments.apps).
func SteadyHistory(resource string) string { return "steady/" + resource }

// SteadyKey is the joined key of the object ns/name recorded in history.
func SteadyKey(history, namespace, name string) string {
	return oracle.JoinedKey(history, namespace+"/"+name)
}

// ReadinessOverride decides readiness of a kind that follows no status
// convention: the field at Path has Value (as text), or, with Exists, is
// there (Path "": the object exists). With StatusOwed, a rule the
// reference runs taught (StatusOwed), not the subject's: an object of
// Kind is not ready while it has no status, and kstatus decides once it
// has.
type ReadinessOverride struct {
	Kind       string `json:"kind"`
	Path       string `json:"path,omitempty"`
	Value      string `json:"value,omitempty"`
	Exists     bool   `json:"exists,omitempty"`
	StatusOwed bool   `json:"statusOwed,omitempty"`
	// AtLeast, a rule the reference runs taught (ObjectsOwed), not the
	// subject's: the state is not ready while the objects own fewer than
	// AtLeast objects of Kind (a controller backing off before it makes
	// again what a fault took looks ready without it).
	AtLeast int `json:"atLeast,omitempty"`
}

// SettlePhase is one moment after which the state must settle: the
// objects applied, a change, a fault recovered. Objects are the joined
// keys of the applied objects that must exist then (a deleted one no
// longer does).
type SettlePhase struct {
	What    string    `json:"what"`
	Since   time.Time `json:"since"`
	Within  string    `json:"within"`
	Window  string    `json:"window"`
	Objects []string  `json:"objects"`
	// Final says every change had been made: the state is to be the one
	// the reference runs ended in, and the kinds they taught are owed a
	// status (FactSteadyStatusOwed) are not ready without one.
	Final bool `json:"final,omitempty"`
	// WatchesBack, after faults, is when the controller watched again
	// each resource it watched when the first fault began and not when
	// they were recovered (WatchesBackAt), when that was after Since: W
	// is counted from then, within what is left of T.
	WatchesBack time.Time `json:"watchesBack,omitzero"`
	// RetriesDue, after faults, is when no write a fault refused was
	// still owed its retry (OwedRetries), or T ran out first, when that
	// was after Since; Retries are the retries that held the wait, each
	// as last seen (one neither Retried nor due by RetriesDue had not
	// come within T). W is counted from then, within what is left of T.
	RetriesDue time.Time   `json:"retriesDue,omitzero"`
	Retries    []OwedRetry `json:"retries,omitempty"`
}

// Convergence is the phase's wait for its objects to be ready, within T
// and for W (within, window), from Since, or from the later of
// WatchesBack and RetriesDue when that is after Since: until the
// controller watched again its objects may look ready only because it has
// not seen what changed meanwhile, and until its retries of refused
// writes were due only because it has not acted again yet.
func (ph SettlePhase) Convergence(within, window time.Duration) oracle.Convergence {
	c := oracle.Convergence{Since: ph.Since, Within: within, Window: window}
	from, why := ph.WatchesBack, "the controller watched again what it watched when the faults began"
	if ph.RetriesDue.After(from) {
		from, why = ph.RetriesDue, "the retries of the writes the faults refused were due"
	}
	// Never past T: what T left of the wait is W alone.
	if limit := ph.Since.Add(within); from.After(limit) {
		from, why = limit, "T ran out before the retries of the writes the faults refused were due"
	}
	if from.After(ph.Since) {
		c.Since, c.Within = from, max(within-from.Sub(ph.Since), 0)
		// A verdict counts from the later start, and says so: "T=249ms"
		// alone reads as a bound the subject was never given.
		c.From = fmt.Sprintf("%s (%s after %s), with %s of T=%s left", why, from.Sub(ph.Since).Round(time.Millisecond), ph.What, c.Within.Round(time.Millisecond), within)
	}
	return c
}

// Readiness is how the phase's readiness is decided, live and offline:
// the subject's overrides and, in a Final phase, the kinds owed a status
// (WithStatusOwed) and the objects owed (WithObjectsOwed).
func (ph SettlePhase) Readiness(overrides []ReadinessOverride, owed []string, objects map[string]int) []ReadinessOverride {
	if ph.Final {
		return WithObjectsOwed(WithStatusOwed(overrides, owed), objects)
	}
	return overrides
}

// QuietWindow is when nothing changed and the controller was watched for
// writes (From, To: To is earlier than From+Window when a write ended
// the watch), and, when something was changed next, that change (Next):
// a controller that is quiet only because it no longer acts (hung) is
// caught by what it does not do then.
type QuietWindow struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Window is the quiet window the binding asked for ("" in evidence
	// from before it was recorded).
	Window string `json:"window,omitempty"`
	// Next is the change made right after the window, which must draw a
	// write of the controller within its T.
	Next *QuietProbe `json:"next,omitempty"`
}

// QuietProbe is another party's write after a quiet window that a live
// controller acts on: What, made At, to be acted on Within.
type QuietProbe struct {
	What   string    `json:"what"`
	At     time.Time `json:"at"`
	Within string    `json:"within"`
}

// Deletion is when the harness deleted the objects (At), how long what
// they leave may take to go (Within), and when they were first applied
// (Applied: what the controller created from then on is its own).
type Deletion struct {
	Applied time.Time `json:"applied"`
	At      time.Time `json:"at"`
	Within  string    `json:"within"`
}

// ObjectReady decides an object's readiness: the first override for its
// kind, or kstatus (Current is ready). The reason says why not.
func ObjectReady(obj *unstructured.Unstructured, overrides []ReadinessOverride) (bool, string) {
	for _, o := range overrides {
		if o.Kind != obj.GetKind() || o.AtLeast > 0 {
			continue
		}
		if o.StatusOwed {
			if !hasStatus(obj.Object) {
				return false, "no status yet; every clean reference run ended with one"
			}
			break
		}
		if o.Path == "" {
			return true, ""
		}
		v, found, _ := unstructured.NestedFieldNoCopy(obj.Object, strings.Split(o.Path, ".")...)
		switch {
		case !found:
			return false, o.Path + " is not set"
		case o.Exists:
			return true, ""
		case fmt.Sprint(v) != o.Value:
			return false, fmt.Sprintf("%s is %v, not %s", o.Path, v, o.Value)
		}
		return true, ""
	}
	if suspendedJob(obj) {
		return true, ""
	}
	res, err := status.Compute(obj)
	if err != nil {
		return false, "kstatus: " + err.Error()
	}
	if res.Status != status.CurrentStatus {
		why := string(res.Status)
		if res.Message != "" {
			why += ": " + res.Message
		}
		return false, why
	}
	if why := badCondition(obj); why != "" {
		return false, why
	}
	return true, ""
}

// suspendedJob reports whether obj is a Job parked by design: spec.suspend
// true and the Job controller's Suspended condition True (a queueing
// controller such as Kueue or JobSet holds it so until it admits it).
// kstatus calls it not started, in progress for good; it is at rest.
func suspendedJob(obj *unstructured.Unstructured) bool {
	if obj.GetKind() != "Job" || !strings.HasPrefix(obj.GetAPIVersion(), "batch/") {
		return false
	}
	if suspend, _, _ := unstructured.NestedBool(obj.Object, "spec", "suspend"); !suspend {
		return false
	}
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Suspended" && m["status"] == "True" {
			return true
		}
	}
	return false
}

// Conditions whose name says which way is healthy, beside the Ready,
// Reconciling and Stalled that kstatus reads: a custom resource with one
// of healthyWhenTrue False, or one of unhealthyWhenTrue True, is not
// ready, whatever kstatus says (it calls such an object Current). Only
// custom resources: kstatus knows Kubernetes' own kinds.
var (
	healthyWhenTrue   = []string{"Available", "Synced", "Healthy"}
	unhealthyWhenTrue = []string{"Degraded", "Failed", "Failure", "Error", "ReplicaFailure"}
)

// badCondition says which condition of a custom resource says it is not
// healthy (healthyWhenTrue False, unhealthyWhenTrue True); "" when none
// does.
func badCondition(obj *unstructured.Unstructured) string {
	group, _, found := strings.Cut(obj.GetAPIVersion(), "/")
	if !found || !strings.Contains(group, ".") || strings.HasSuffix(group, ".k8s.io") {
		return ""
	}
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		typ, _ := m["type"].(string)
		st, _ := m["status"].(string)
		bad := (slices.Contains(healthyWhenTrue, typ) && st == "False") || (slices.Contains(unhealthyWhenTrue, typ) && st == "True")
		if !bad {
			continue
		}
		why := fmt.Sprintf("condition %s is %s", typ, st)
		if reason, _ := m["reason"].(string); reason != "" {
			why += " (" + reason + ")"
		}
		return why
	}
	return ""
}

// hasStatus says whether obj has a status with something in it.
func hasStatus(obj map[string]any) bool {
	st, ok := obj["status"].(map[string]any)
	return ok && len(st) > 0
}

// StatusOwed are the kinds the settled reference runs teach are owed a
// status: each kind of applied object of which every object, applied or
// owned, ended every one of them with a status. kstatus calls an object
// with no status Current, so without the rule a faulted run's end state
// could be taken before the controller had written any: a difference of
// the harness's making. The references saw only their end, so the rule
// holds only once every change has been made (SettlePhase.Final). Sorted;
// none without a settled reference run.
func StatusOwed(refs []*EndState) []string {
	var owed map[string]bool // kind: every object of it had a status
	for _, ref := range refs {
		if ref.NotReady != "" {
			continue
		}
		applied := map[string]bool{}
		for _, k := range ref.Roots {
			kind, _ := ref.Objects[k]["kind"].(string)
			applied[kind] = true
		}
		kinds := map[string]bool{}
		for _, obj := range ref.Objects {
			kind, _ := obj["kind"].(string)
			if !applied[kind] {
				continue
			}
			with, seen := kinds[kind]
			kinds[kind] = hasStatus(obj) && (with || !seen)
		}
		if owed == nil {
			owed = kinds
			continue
		}
		for kind := range owed {
			owed[kind] = owed[kind] && kinds[kind]
		}
	}
	var out []string
	for _, kind := range slices.Sorted(maps.Keys(owed)) {
		if owed[kind] {
			out = append(out, kind)
		}
	}
	return out
}

// WithStatusOwed is overrides, the subject's, followed by a rule for each
// kind owed a status (StatusOwed): the subject's rule for a kind comes
// first and decides.
func WithStatusOwed(overrides []ReadinessOverride, kinds []string) []ReadinessOverride {
	out := slices.Clip(overrides)
	for _, k := range kinds {
		out = append(out, ReadinessOverride{Kind: k, StatusOwed: true})
	}
	return out
}

// ObjectsOwed are, by kind, the fewest objects of it the applied objects
// owned (transitively, themselves aside) at the end of every settled
// reference run: what a faulted run's objects owe again once every change
// has been made (SettlePhase.Final), before its state counts as ready
// and its end state is taken. A controller that backs off after a fault
// took one of them (the EndpointSlice controller retrying a refused
// create 8 s later) looks ready without it. None without a settled
// reference run.
func ObjectsOwed(refs []*EndState) map[string]int {
	var out map[string]int
	for _, ref := range refs {
		if ref.NotReady != "" {
			continue
		}
		counts := map[string]int{}
		for k, o := range ref.Objects {
			if slices.Contains(ref.Roots, k) || slices.Contains(ref.Written, k) {
				continue
			}
			kind, _ := o["kind"].(string)
			counts[kind]++
		}
		if out == nil {
			out = counts
			continue
		}
		for kind, n := range out {
			out[kind] = min(n, counts[kind])
		}
	}
	for kind, n := range out {
		if n == 0 {
			delete(out, kind)
		}
	}
	return out
}

// WithObjectsOwed is overrides followed by a rule for each kind owed
// objects (ObjectsOwed).
func WithObjectsOwed(overrides []ReadinessOverride, owed map[string]int) []ReadinessOverride {
	out := slices.Clip(overrides)
	for _, k := range slices.Sorted(maps.Keys(owed)) {
		out = append(out, ReadinessOverride{Kind: k, AtLeast: owed[k]})
	}
	return out
}

// owned is the keys of the objects of s that keys' objects own, by
// ownerReferences, transitively, keys included (those present), sorted.
func owned(s oracle.State, keys []string) []string {
	t := newTracker(keys, nil, false)
	t.update(s)
	return slices.Sorted(maps.Keys(t.owned))
}

// AllReady matches a state in which every one of keys exists and it and
// everything it owns is ready. The match follows the states it is given
// (a tracker): it is meant for one replay or wait at a time.
func AllReady(keys []string, overrides []ReadinessOverride) oracle.Match {
	t := newTracker(keys, overrides, true)
	var atLeast []ReadinessOverride
	for _, o := range overrides {
		if o.AtLeast > 0 {
			atLeast = append(atLeast, o)
		}
	}
	return func(s oracle.State) (bool, string) {
		t.update(s)
		var why []string
		for _, k := range keys {
			if s[k] == nil {
				why = append(why, k+" does not exist")
			}
		}
		if len(atLeast) > 0 {
			counts := map[string]int{}
			for k := range t.owned {
				if o := s[k]; o != nil && !slices.Contains(keys, k) && o.GetDeletionTimestamp() == nil {
					counts[o.GetKind()]++
				}
			}
			for _, o := range atLeast {
				if n := counts[o.Kind]; n < o.AtLeast {
					why = append(why, fmt.Sprintf("the objects own %d %s, every clean reference run ended with at least %d", n, o.Kind, o.AtLeast))
				}
			}
		}
		if len(why) == 0 && len(t.notReady) == 0 {
			return true, ""
		}
		for _, k := range slices.Sorted(maps.Keys(t.notReady)) {
			why = append(why, t.notReady[k])
		}
		if len(why) > 5 {
			why = append(why[:5], fmt.Sprintf("and %d more", len(why)-5))
		}
		return false, strings.Join(why, "; ")
	}
}

// steadySource is the evidence's steady-state histories joined, each
// object under its SteadyKey.
func (r *reader) steadySource() oracle.Source {
	names := get(r, FactSteadyHistories)
	others := map[string]*oracle.History{}
	if r.err == nil {
		for _, n := range names {
			others[n] = r.history(n)
		}
	}
	return oracle.Join(oracle.NewHistory(), others)
}

func (r *reader) overrides() []ReadinessOverride {
	var out []ReadinessOverride
	if FactSteadyReadiness.Has(r.e) {
		out = get(r, FactSteadyReadiness)
	}
	return out
}

// objectsOwed is the objects the run recorded as owed
// (FactSteadyObjectsOwed), less the finished pods another party deleted
// (FactSteadyDisturbed, ObjectsOwedAfter); none when it recorded none.
func (r *reader) objectsOwed() map[string]int {
	var out map[string]int
	if FactSteadyObjectsOwed.Has(r.e) {
		out = get(r, FactSteadyObjectsOwed)
	}
	if FactSteadyDisturbed.Has(r.e) && len(out) > 0 {
		ds := get(r, FactSteadyDisturbed)
		out = ObjectsOwedAfter(out, ds, r.steadySource())
	}
	return out
}

// ObjectsOwedAfter is owed (ObjectsOwed: by kind, how many objects every
// clean reference run's objects ended owning) less one pod for each pod
// of the controller's own that another party deleted (ds, Owned) once it
// had finished: Succeeded or Failed in the last state src recorded before
// the deletion. Nothing makes a finished pod again (a Job counts it done
// and an Indexed Job's completed index stays complete), so the objects
// owe one pod fewer; a running pod's deletion owes its replacement and
// lowers nothing. The floor is lowered for the whole run, the phases
// before the deletion included, which then owe one pod less than the
// reference runs teach. owed itself is left as it is.
func ObjectsOwedAfter(owed map[string]int, ds []Disturbance, src oracle.Source) map[string]int {
	out := maps.Clone(owed)
	for _, d := range ds {
		if !d.Owned || d.Kind != "Pod" || out[d.Kind] == 0 {
			continue
		}
		o := src.StateAt(d.At.Add(-time.Nanosecond))[d.Key]
		if o == nil {
			continue
		}
		if phase, _, _ := unstructured.NestedString(o.Object, "status", "phase"); phase != "Succeeded" && phase != "Failed" {
			continue
		}
		if out[d.Kind]--; out[d.Kind] == 0 {
			delete(out, d.Kind)
		}
	}
	return out
}

// statusOwed is the kinds the run recorded as owed a status
// (FactSteadyStatusOwed); none when it recorded none.
func (r *reader) statusOwed() []string {
	var out []string
	if FactSteadyStatusOwed.Has(r.e) {
		out = get(r, FactSteadyStatusOwed)
	}
	return out
}

// settles judges each phase of the fact named: every object of the phase
// and everything it owns ready within its T, for its W, judged until the
// next phase began (or T+W after it, or the end of the evidence).
func settles(fact PhaseFact) Judge {
	return func(e *evidence.Evidence) error {
		r := read(e)
		phases := get(r, fact)
		src, overrides, owed, objectsOwed := r.steadySource(), r.overrides(), r.statusOwed(), r.objectsOwed()
		if err := r.missing(); err != nil {
			return err
		}
		if len(phases) == 0 {
			return fmt.Errorf("%w: fact %q names no phase", oracle.ErrNotEvaluated, fact)
		}
		var broken []error
		if fact == FactSteadyRecover {
			if FactSteadyStale.Has(e) {
				st, err := FactSteadyStale.Get(e)
				if err != nil {
					return fmt.Errorf("%w: %w", oracle.ErrNotEvaluated, err)
				}
				if len(st.Reconciled) > 0 {
					err := fmt.Errorf("the controller did not watch %s again within %s of the faults' recovery: it stopped watching what it reconciles", strings.Join(st.Reconciled, ", "), st.Within)
					if within, perr := time.ParseDuration(st.Within); perr == nil && len(e.Faults) > 0 {
						recovered := e.Faults[0].End
						for _, f := range e.Faults {
							if f.End.After(recovered) {
								recovered = f.End
							}
						}
						err = oracle.BrokeAt(recovered.Add(within), err)
					}
					broken = append(broken, err)
				}
			}
		}
		for i, ph := range phases {
			within, err1 := time.ParseDuration(ph.Within)
			window, err2 := time.ParseDuration(ph.Window)
			if err := errors.Join(err1, err2); err != nil {
				return fmt.Errorf("%w: fact %q, phase %q: %w", oracle.ErrNotEvaluated, fact, ph.What, err)
			}
			c := ph.Convergence(within, window)
			until := ph.Since.Add(within + window)
			if i+1 < len(phases) && phases[i+1].Since.Before(until) {
				until = phases[i+1].Since
			}
			cut := e.End.Before(until)
			if cut {
				until = e.End
			}
			_, err := c.Check(src, AllReady(ph.Objects, ph.Readiness(overrides, owed, objectsOwed)), until)
			switch {
			case err != nil && cut && len(broken) > 0:
				// What broke before the evidence ended is a finding; a
				// finding wins over what could not be judged beside it.
				return errors.Join(broken...)
			case err != nil && cut:
				return fmt.Errorf("%w: the evidence ends %s after %s, before T+W (%s): %w", oracle.ErrNotEvaluated, e.End.Sub(ph.Since).Round(time.Millisecond), ph.What, within+window, err)
			case err != nil:
				broken = append(broken, fmt.Errorf("after %s: %w", ph.What, err))
			}
		}
		return errors.Join(broken...)
	}
}

// quiescent judges the quiet window: no write of the controller, Lease
// and Event writes aside, while nothing changed, of the run's (RunWrite:
// its namespace's objects, cluster-scoped ones, and those in another
// namespace under a name that carries the run's); and, when a change
// came next (QuietWindow.Next), a write of the controller within its T:
// quiet because it is done, not because it stopped acting.
func quiescent(e *evidence.Evidence) error {
	r := read(e)
	q := get(r, FactSteadyQuiet)
	logs := r.proxyLogs()
	ns, named := r.runNamespace(), r.clusterScoped()
	if err := r.missing(); err != nil {
		return err
	}
	if e.End.Before(q.To) {
		return fmt.Errorf("%w: the evidence ends before the quiet window does (%s)", oracle.ErrNotEvaluated, q.To.Sub(e.End).Round(time.Millisecond))
	}
	var writes []proxy.Request
	var acted *proxy.Request
	var within time.Duration
	if q.Next != nil {
		d, err := time.ParseDuration(q.Next.Within)
		if err != nil {
			return fmt.Errorf("%w: fact %q: %w", oracle.ErrNotEvaluated, FactSteadyQuiet, err)
		}
		within = d
	}
	for _, p := range logs {
		for i, req := range p.Requests {
			if !RunWrite(req, ns, named...) {
				continue
			}
			if !req.Start.Before(q.From) && !req.Start.After(q.To) {
				_, aside, err := quietReAdd(e, p.Requests, req, ns, named)
				if err != nil {
					return fmt.Errorf("%w: %w", oracle.ErrNotEvaluated, err)
				}
				if !aside {
					writes = append(writes, req)
				}
			}
			if q.Next != nil && req.Start.After(q.Next.At) && !req.Start.After(q.Next.At.Add(within)) && (acted == nil || req.Start.Before(acted.Start)) {
				acted = &p.Requests[i]
			}
		}
	}
	if len(writes) > 0 {
		slices.SortFunc(writes, func(a, b proxy.Request) int { return a.Start.Compare(b.Start) })
		count := map[string]int{}
		var order []string
		for _, w := range writes {
			what := w.Verb + " " + w.Resource
			if w.Subresource != "" {
				what += "/" + w.Subresource
			}
			what += " " + w.Namespace + "/" + w.Name
			if count[what] == 0 {
				order = append(order, what)
			}
			count[what]++
		}
		var parts []string
		for _, what := range order {
			parts = append(parts, fmt.Sprintf("%s ×%d", what, count[what]))
		}
		return oracle.BrokeAt(writes[0].Start, fmt.Errorf("the controller wrote %d times in the %s it was quiet for, with nothing changing: %s (first at %s)",
			len(writes), q.To.Sub(q.From).Round(time.Millisecond), strings.Join(parts, ", "), writes[0].Start.Format("15:04:05.000")))
	}
	if q.Next == nil || acted != nil {
		return nil
	}
	deadline := q.Next.At.Add(within)
	if e.End.Before(deadline) {
		return fmt.Errorf("%w: the evidence ends %s after %s, before T=%s, with no write of the controller yet", oracle.ErrNotEvaluated, e.End.Sub(q.Next.At).Round(time.Millisecond), q.Next.What, within)
	}
	return oracle.BrokeAt(deadline, fmt.Errorf("the controller made no write within %s of %s, made after its %s quiet window: it was quiet because it no longer acted", within, q.Next.What, q.To.Sub(q.From).Round(time.Millisecond)))
}

// quietReAdd reports whether w, a write of the replica whose requests are
// reqs, in the quiet window, is one quiescent leaves aside: the write a
// re-add of refused writes brought (ReAddOf) that changed nothing (no
// watch event of its object recorded from its start to RetrySlack after
// its answer but its deletion's, which the harness begins when the
// window ends: a DELETED event, or one of the object being deleted). The
// re-add is the faults' recovery, which a client-go work queue finishes
// after the state looks settled; a write that changed something, or one
// whose object's history was not recorded, counts.
//
// A history the run recorded (FactSteadyHistories) and the evidence lacks
// is an error: without it, whether the write changed anything cannot be
// told.
func quietReAdd(e *evidence.Evidence, reqs []proxy.Request, w proxy.Request, ns string, named []string) (ReAdd, bool, error) {
	ra, ok := ReAddOf(reqs, w, ns, named)
	if !ok {
		return ReAdd{}, false, nil
	}
	name := historyOf(w.GroupResource(), w.Namespace, ns)
	h, err := e.History(name)
	if err != nil {
		if recorded, _ := FactSteadyHistories.Lookup(e); slices.Contains(recorded, name) {
			return ReAdd{}, false, err
		}
		return ReAdd{}, false, nil
	}
	key := w.ObjectName()
	if w.Namespace != "" {
		key = w.Namespace + "/" + key
	}
	for _, ev := range h.Events() {
		if ev.Key != key || ev.At.Before(w.Start) || ev.At.After(w.End.Add(RetrySlack)) {
			continue
		}
		if deleting := ev.Object != nil && ev.Object.GetDeletionTimestamp() != nil; ev.Type != "DELETED" && !deleting {
			return ReAdd{}, false, nil
		}
	}
	return ra, true, nil
}

// quiescentBound is quiescent's "bound" figure: the window watched,
// whether the next change was held to draw a write, and the writes left
// aside as a re-add's (quietReAdd).
func quiescentBound(e *evidence.Evidence) string {
	q, ok := FactSteadyQuiet.Lookup(e)
	if !ok {
		return ""
	}
	text := fmt.Sprintf("no write for %s", q.To.Sub(q.From).Round(time.Millisecond))
	if q.Window != "" {
		text += " (window " + q.Window + ")"
	}
	r := read(e)
	ns, named := r.runNamespace(), r.clusterScoped()
	for _, p := range proxyLogs(e) {
		for _, w := range p.Requests {
			if w.Start.Before(q.From) || w.Start.After(q.To) {
				continue
			}
			if ra, aside, _ := quietReAdd(e, p.Requests, w, ns, named); aside {
				text += fmt.Sprintf("; left aside, %s %s at +%s, which changed nothing: the re-add that failure %d of its %d refused writes in a row (the last at +%s) left in the work queue was due at +%s",
					w.Verb, ra.Object, w.Start.Sub(e.Start).Round(time.Millisecond), ra.Failure, ra.Refused, ra.Last.Sub(e.Start).Round(time.Millisecond), ra.Due.Sub(e.Start).Round(time.Millisecond))
			}
		}
	}
	if q.Next != nil {
		text += fmt.Sprintf("; then %s drew a write within %s", q.Next.What, q.Next.Within)
	} else {
		text += "; no change that drew a write in the first clean run came after it, to show the controller still acts"
	}
	return text
}

// QuiescentUnbound says why quiescent is not bound, "" when it is owed:
// a run that watched no quiet window (FactSteadyQuiet) because its state
// did not settle again, a phase of FactSteadyRecover or FactSteadySettle
// broken (an exploration schedule's, once its faults were recovered), or
// because the controller had not watched again what it watched before the
// faults (FactSteadyStale). Quiescence is owed by a settled state, and a
// controller whose view is current, only: not judged then, never a
// pass and never a finding (recovers or settles is the finding). A run
// that recorded a window, or evidence that does not tell (a phase not
// evaluated, a fact missing), is quiescent's to judge.
func QuiescentUnbound(e *evidence.Evidence) string {
	if FactSteadyQuiet.Has(e) {
		return ""
	}
	if st, ok := FactSteadyStale.Lookup(e); ok {
		// What it reconciles, where the run says (a resource it watched
		// in passing, not needed again, leaves its view of what it
		// writes current); every stale resource in evidence from before.
		if len(st.Resources) > 0 && (st.Reconciled == nil || len(st.Reconciled) > 0) {
			stale := st.Reconciled
			if stale == nil {
				stale = st.Resources
			}
			return fmt.Sprintf("the controller did not watch %s again within %s of the faults' recovery: quiescence is owed by a controller whose view is current, and no quiet window was watched", strings.Join(stale, ", "), st.Within)
		}
	}
	for _, fact := range []PhaseFact{FactSteadyRecover, FactSteadySettle} {
		if !fact.Has(e) {
			continue
		}
		// The error names the phase: after the faults were recovered,
		// or after a change.
		if err := settles(fact)(e); err != nil && !errors.Is(err, oracle.ErrNotEvaluated) {
			return fmt.Sprintf("the state did not settle again, %s; quiescence is owed by a settled state only, and no quiet window was watched", strings.ReplaceAll(err.Error(), "\n", "; "))
		}
	}
	return ""
}

// IsControllerWrite is a write that counts against quiescence: any write
// of an API object but Leases (an election's renewals), Events, and the
// reviews of authentication.k8s.io and authorization.k8s.io (an access
// review, a token review): those are questions the API server answers
// and stores nothing of. A controller that asks one as it starts, or on
// each resync, writes nothing (quiescent broke on a reference controller
// whose start-up access review came after its objects looked settled),
// and leaves nothing behind.
func IsControllerWrite(info proxy.RequestInfo) bool {
	if !info.IsWrite() {
		return false
	}
	switch info.Group {
	case "authentication.k8s.io", "authorization.k8s.io":
		return false
	}
	return info.Resource != "leases" && info.Resource != "events"
}

// RunWrite is a write of the controller (IsControllerWrite) that is the
// run's (runScope): of an object in the run's namespace ns; in another
// namespace, of one whose name carries ns (a record the controller keeps
// for the run elsewhere); or of a cluster-scoped one. A controller that
// watches every namespace also writes in others (the garbage collector
// cleaning up what an earlier spec left in its own), which is not this
// run's, as the end state counts it. Of the resources of the run's
// cluster-scoped objects (named: plural, with its group but for the core
// group), whose names carry their run's namespace, only an object whose
// name carries ns is the run's: runs sharing the cluster each have their
// own, and every run's controller may write them all. A create's object
// is named by its answer (or the body it sent: Request.ObjectName).
func RunWrite(req proxy.Request, ns string, named ...string) bool {
	return IsControllerWrite(req.RequestInfo) && runScope{ns: ns, named: named}.has(req.GroupResource(), req.Namespace, req.ObjectName())
}

// clusterScoped are the resources of the run's cluster-scoped objects
// (FactSteadyObjects: their keys have no namespace), for RunWrite.
func (r *reader) clusterScoped() []string {
	var out []string
	objs, _ := FactSteadyObjects.Lookup(r.e)
	for _, k := range objs {
		if res := SteadyResource(k); res != "" && keyNamespace(k) == "" && !slices.Contains(out, res) {
			out = append(out, res)
		}
	}
	return out
}

// runNamespace is the run's namespace (FactSteadyNamespace), or, in
// evidence without it, the first namespaced applied object's
// (FactSteadyObjects); "" when the facts are missing (r keeps that).
func (r *reader) runNamespace() string {
	if ns, _ := FactSteadyNamespace.Lookup(r.e); ns != "" {
		return ns
	}
	objs := get(r, FactSteadyObjects)
	if r.err == nil && len(objs) == 0 {
		r.keep(fmt.Errorf("%w: fact %q names no object", oracle.ErrNotEvaluated, FactSteadyObjects))
	}
	return keysNamespace(objs)
}

// restartName is the restart's name on the fault timeline.
var restartName = chaos.ProcessFault{Action: chaos.Restart}.Name()

// restartedOnceSettled is the upgrade's premise: the controller was
// restarted once the objects had settled (the first settle phase ready
// for its W) and before the next change.
func restartedOnceSettled(e *evidence.Evidence) error {
	injs, err := Injected(e.Faults, restartName)
	if err != nil {
		return err
	}
	r := read(e)
	phases := get(r, FactSteadySettle)
	src, overrides, owed, objectsOwed := r.steadySource(), r.overrides(), r.statusOwed(), r.objectsOwed()
	if err := r.missing(); err != nil {
		return err
	}
	if len(phases) == 0 {
		return fmt.Errorf("%w: fact %q names no phase", oracle.ErrNotEvaluated, FactSteadySettle)
	}
	ph, at := phases[0], injs[0].Start
	within, err1 := time.ParseDuration(ph.Within)
	window, err2 := time.ParseDuration(ph.Window)
	if err := errors.Join(err1, err2); err != nil {
		return fmt.Errorf("%w: fact %q: %w", oracle.ErrNotEvaluated, FactSteadySettle, err)
	}
	res, err := ph.Convergence(within, window).Check(src, AllReady(ph.Objects, ph.Readiness(overrides, owed, objectsOwed)), at)
	switch {
	case err != nil:
		return fmt.Errorf("the restart began at %s, before the objects had settled (%s): %w", at.Format("15:04:05.000"), ph.What, err)
	case res.At.Add(window).After(at):
		return fmt.Errorf("the restart began at %s, before the objects had been ready for W=%s (ready from %s)", at.Format("15:04:05.000"), window, res.At.Format("15:04:05.000"))
	case len(phases) > 1 && phases[1].Since.Before(at):
		return fmt.Errorf("the restart began at %s, after the next change (%s at %s)", at.Format("15:04:05.000"), phases[1].What, phases[1].Since.Format("15:04:05.000"))
	}
	return nil
}

// restartLag is how soon after a first create its restart must begin to
// count as right after it: the harness sees the create in the proxy's
// log within milliseconds and restarts at once.
const restartLag = time.Second

// restartedAfterFirstCreates is the premise of the restarts after each
// first create: of the resources the clean reference runs saw the
// controller create (want), each it created in the run (runScope: in its
// namespace, cluster-scoped, or in another namespace under a name that
// carries the run's) was followed by a restart, and each restart began
// within restartLag of the later of the answer to the latest first
// create of one of them since the restart before and that restart's end.
// A create a restart cut off (no answer) that made its object all the
// same (madeByCut) is the first create of its resource when it came
// first, and the restart that cut it off followed it: the controller
// restarted finds the object, and what it does then (nothing, or make
// it again) owes no other restart.
func restartedAfterFirstCreates(e *evidence.Evidence) error {
	injs, err := Injected(e.Faults, restartName)
	if err != nil {
		return err
	}
	// Every reference run's creates, settled or not: a controller that
	// never settles still makes what it makes.
	if !FactSteadyReferences.Has(e) {
		return fmt.Errorf("%w: fact %q: %w", oracle.ErrNotEvaluated, FactSteadyReferences, evidence.ErrMissing)
	}
	rr := read(e)
	refs := get(rr, FactSteadyReferences)
	if err := rr.missing(); err != nil {
		return err
	}
	var want []string
	for _, ref := range refs {
		for res, n := range ref.Creates {
			if n > 0 && !slices.Contains(want, res) {
				want = append(want, res)
			}
		}
	}
	slices.Sort(want)
	r := read(e)
	m := get(r, FactSteadyEnd)
	r.proxyLogs()
	named := r.clusterScoped()
	ns := r.runNamespace()
	src := r.steadySource()
	histories := get(r, FactSteadyHistories)
	if err := r.missing(); err != nil {
		return err
	}
	scope := runScope{ns: ns, named: named}
	first := map[string]write{}
	for _, w := range controllerWrites(e, m.Applied, m.At) {
		if _, ok := first[w.resource]; w.created && !ok && slices.Contains(want, w.resource) && scope.has(w.resource, w.namespace, w.name) {
			first[w.resource] = w
		}
	}
	// cut are the resources whose first create a restart cut off, by
	// the index of that restart: the first to end after it began.
	cut := map[string]int{}
	for res, w := range madeByCut(e, src, histories, scope, want, m.Applied, m.At) {
		if f, ok := first[res]; ok && f.at.Before(w.at) {
			continue
		}
		delete(first, res)
		i := slices.IndexFunc(injs, func(inj chaos.Injection) bool { return !inj.End.Before(w.at) })
		if i < 0 {
			return fmt.Errorf("the controller first created %s (%s, no answer: its object was made all the same) after its last restart, and no restart followed", res, w)
		}
		cut[res] = i
	}
	covered := map[string]bool{}
	prev, prevEnd := time.Time{}, time.Time{}
	for i, inj := range injs {
		for res, j := range cut {
			if j == i {
				covered[res] = true
			}
		}
		var last *write
		for _, res := range want {
			w, ok := first[res]
			if ok && w.end.After(prev) && !w.end.After(inj.Start) {
				covered[res] = true
				if last == nil || w.end.After(last.end) {
					last = &w
				}
			}
		}
		switch {
		case last == nil:
			return fmt.Errorf("restart %d began at %s with no first create of %s since the restart before", i+1, inj.Start.Format("15:04:05.000"), strings.Join(want, ", "))
		// A create answered while the restart before still went on can
		// be followed only once that restart is done.
		case inj.Start.Sub(later(last.end, prevEnd)) > restartLag:
			return fmt.Errorf("restart %d began at %s, %s after the first create it followed (%s)", i+1, inj.Start.Format("15:04:05.000"), inj.Start.Sub(later(last.end, prevEnd)).Round(time.Millisecond), last)
		}
		prev, prevEnd = inj.Start, inj.End
	}
	// A resource this run never made has no first create to follow:
	// what the controller failed to make is the comparison's to find.
	for _, res := range want {
		if w, ok := first[res]; ok && !covered[res] {
			return fmt.Errorf("the controller first created %s (%s) after its last restart, and no restart followed", res, w)
		}
	}
	return nil
}

// madeByCut are the controller's creates of want (of the run's objects,
// scope) begun within [from, to] that got no answer (cutWrites: a
// restart cut them off) and made their object all the same, the
// earliest of each resource's: an object of the name the create's body
// gave appeared in its history after the create began, and no answered
// create made it (by uid). A create of a resource no history records,
// or whose body named no object, is not told.
func madeByCut(e *evidence.Evidence, src oracle.Source, histories []string, scope runScope, want []string, from, to time.Time) map[string]write {
	answered := map[string]bool{}
	for _, w := range controllerWrites(e, from, to) {
		if w.created && w.uid != "" {
			answered[w.uid] = true
		}
	}
	out := map[string]write{}
	for _, w := range cutWrites(e, from, to) {
		h := historyOf(w.resource, w.namespace, scope.ns)
		if earlier, ok := out[w.resource]; w.verb != "create" || (ok && !w.at.Before(earlier.at)) || !slices.Contains(want, w.resource) ||
			!scope.has(w.resource, w.namespace, w.name) || !slices.Contains(histories, h) {
			continue
		}
		key := SteadyKey(h, w.namespace, w.name)
		var before string
		if o := src.StateAt(w.at)[key]; o != nil {
			before = string(o.GetUID())
		}
		made := false
		src.ReplayAfter(w.at, func(at time.Time, s oracle.State) {
			if o := s[key]; !made && !at.After(to) && o != nil && string(o.GetUID()) != before && !answered[string(o.GetUID())] {
				made = true
			}
		})
		if made {
			out[w.resource] = w
		}
	}
	return out
}

// restartedAfterFirstWrite is the restart premise: the controller was
// restarted, and the restart began after its first write of an object
// of the run (RunWrite; Lease and Event writes aside, and what the API
// server never stores, FactSteadyUnstored) was answered.
func restartedAfterFirstWrite(e *evidence.Evidence) error {
	injs, err := Injected(e.Faults, chaos.ProcessFault{Action: chaos.Restart}.Name())
	if err != nil {
		return err
	}
	r := read(e)
	logs := r.proxyLogs()
	ns, named := r.runNamespace(), r.clusterScoped()
	if err := r.missing(); err != nil {
		return err
	}
	var first *proxy.Request
	notStored := unstored(e)
	for _, p := range logs {
		for i, req := range p.Requests {
			if RunWrite(req, ns, named...) && req.Code >= 200 && req.Code < 300 && !slices.Contains(notStored, req.GroupResource()) && (first == nil || req.End.Before(first.End)) {
				first = &p.Requests[i]
			}
		}
	}
	switch {
	case first == nil:
		return fmt.Errorf("the controller made no write in %q (nor of a cluster-scoped object) before its restart, nor after", ns)
	case injs[0].Start.Before(first.End):
		return fmt.Errorf("the restart began at %s, before the controller's first write was answered (%s %s at %s)", injs[0].Start.Format("15:04:05.000"), first.Verb, first.Resource, first.End.Format("15:04:05.000"))
	}
	return nil
}

// acts judges that a fault-free run's controller acted on the objects:
// at least one write of the run (RunWrite) answered 2xx between the
// objects' application and the end of the evidence. A controller that
// panics in every reconcile, or never reconciles its kind, writes
// nothing: its objects may still look ready (a kind with no status is
// ready once it exists) and its deletion leave nothing.
func acts(e *evidence.Evidence) error {
	r := read(e)
	m := get(r, FactSteadyEnd)
	r.proxyLogs()
	ns, named := r.runNamespace(), r.clusterScoped()
	histories := get(r, FactSteadyHistories)
	if err := r.missing(); err != nil {
		return err
	}
	// A write of what the run records: what the API server never stores
	// (the access review a controller makes at start) is recorded by no
	// history, and is no act on the objects.
	for _, p := range proxyLogs(e) {
		for _, req := range p.Requests {
			if !req.Start.Before(m.Applied) && req.Code >= 200 && req.Code < 300 && RunWrite(req, ns, named...) && slices.Contains(histories, historyOf(req.GroupResource(), req.Namespace, ns)) {
				return nil
			}
		}
	}
	return oracle.BrokeAt(e.End, fmt.Errorf("the controller made no write of the run's objects or of what it makes for them from their application (%s) to the end of the run (%s later): it did not act on them", m.Applied.Format("15:04:05.000"), e.End.Sub(m.Applied).Round(time.Millisecond)))
}

// LogPanics is the name of the evidence log of each replica's panics
// (LogPanics + "/" + its identity): the lines of its output that show
// one (PanicLines).
const LogPanics = "panics"

// PanicLine is one line of a controller's output that shows a panic.
type PanicLine struct {
	Line string `json:"line"`
	// N is the line's number in the output, from 1.
	N int `json:"n"`
}

// PanicLines are the lines of a controller's output that show a panic:
// a Go panic that ends the process ("panic: " at a line's start, "fatal
// error: "), or one its framework recovered and logged ("Observed a
// panic", as client-go and controller-runtime write it), at most limit.
func PanicLines(output []byte, limit int) []PanicLine {
	var out []PanicLine
	for i, line := range strings.Split(string(output), "\n") {
		if strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ") || strings.Contains(line, "Observed a panic") {
			if len(line) > 400 {
				line = line[:400] + "…"
			}
			out = append(out, PanicLine{Line: line, N: i + 1})
			if len(out) == limit {
				break
			}
		}
	}
	return out
}

// noPanic judges the controller's output: no replica's log shows a panic
// (LogPanics). A run that kept no such log for a replica whose proxy it
// kept is not evaluated.
func noPanic(e *evidence.Evidence) error {
	if len(e.Proxies) == 0 {
		return fmt.Errorf("%w: no replica's proxy log, so no replica's output: %w", oracle.ErrNotEvaluated, evidence.ErrMissing)
	}
	var found []string
	for _, id := range slices.Sorted(maps.Keys(e.Proxies)) {
		var lines []PanicLine
		if err := e.Log(LogPanics+"/"+id, &lines); err != nil {
			return fmt.Errorf("%w: the output of replica %q: %w", oracle.ErrNotEvaluated, id, err)
		}
		for _, l := range lines {
			found = append(found, fmt.Sprintf("%s line %d: %s", id, l.N, l.Line))
		}
	}
	if len(found) == 0 {
		return nil
	}
	return fmt.Errorf("the controller's output shows %d panics: %s", len(found), strings.Join(found, "; "))
}

// leftBehind is one object that had to go.
type leftBehind struct {
	key, uid string
	why      string // why it had to go
}

// deletion is what leaves-nothing-behind judged: what had to go by the
// deadline, what the subject's shared entries exempted, and what was
// still there.
type deletion struct {
	d        Deletion
	within   time.Duration
	end      time.Time // the deadline, or the evidence's end before it
	must     map[string]leftBehind
	exempted []string
	left     []string
	// unrecorded are creates of resources no history recorded.
	unrecorded []string
	namespaces []string // where what had to go was, "" for cluster-scoped
}

// judgeDeletion finds what the deletion had to remove: every object seen
// owned (transitively) by an applied one from their application to the
// deadline, and every object the controller created (a create, or a
// server-side apply that made it) from the application to the deadline,
// in any namespace: one made after the deletion began (a child made
// again while its parent goes) too. Of resources the API server does not
// store (an access review) nothing is left.
func judgeDeletion(e *evidence.Evidence) (*deletion, error) {
	r := read(e)
	d := get(r, FactSteadyDeleted)
	objs := get(r, FactSteadyObjects)
	histories := get(r, FactSteadyHistories)
	r.proxyLogs()
	src := r.steadySource()
	ns := r.runNamespace()
	if err := r.missing(); err != nil {
		return nil, err
	}
	within, err := time.ParseDuration(d.Within)
	if err != nil {
		return nil, fmt.Errorf("%w: fact %q: %w", oracle.ErrNotEvaluated, FactSteadyDeleted, err)
	}
	out := &deletion{d: d, within: within, must: map[string]leftBehind{}}
	out.end = d.At.Add(within)
	if e.End.Before(out.end) {
		out.end = e.End
	}
	shared, _ := FactSteadyShared.Lookup(e)
	// One object is named as the binding gives it: a cluster-scoped
	// one's name carries {{.Namespace}}.
	isShared := func(o *unstructured.Unstructured) bool {
		return slices.Contains(shared, o.GetKind()) || slices.Contains(shared, o.GetKind()+"/"+o.GetName()) || slices.Contains(shared, o.GetKind()+"/"+maskNamespace(o.GetName(), ns))
	}
	exempt := map[string]bool{}
	mustGo := func(k string, o *unstructured.Unstructured, why string) {
		uid := string(o.GetUID())
		if _, ok := out.must[uid]; ok {
			return
		}
		if isShared(o) {
			if !exempt[k] {
				exempt[k] = true
				out.exempted = append(out.exempted, o.GetKind()+" "+k)
			}
			return
		}
		out.must[uid] = leftBehind{key: k, uid: uid, why: why}
	}

	// Every object seen owned by an applied one, and when each uid was
	// first seen, under which key.
	type seen struct {
		key string
		at  time.Time
	}
	first := map[string]seen{} // uid
	var order []string         // uids, in the order first seen
	t := newTracker(objs, nil, false)
	note := func(s oracle.State, at time.Time) {
		changed, structural := t.update(s)
		if structural {
			for k := range t.owned {
				mustGo(k, s[k], "applied or owned")
			}
		} else {
			for _, k := range changed {
				if t.owned[k] {
					mustGo(k, s[k], "applied or owned")
				}
			}
		}
		// A new uid only comes with a changed object; those seen at once
		// in key order, so a judgement is the same at every replay.
		for _, k := range slices.Sorted(slices.Values(changed)) {
			uid := string(s[k].GetUID())
			if _, ok := first[uid]; !ok {
				first[uid] = seen{k, at}
				order = append(order, uid)
			}
		}
	}
	note(src.StateAt(d.Applied), d.Applied)
	src.ReplayAfter(d.Applied, func(at time.Time, s oracle.State) {
		if !at.After(out.end) {
			note(s, at)
		}
	})
	// Each create the controller got 201 for is the object its answer
	// named (by uid, else by name), or, in evidence from before the
	// proxy read answers, the earliest object of its resource in its
	// namespace first seen after the request began and not matched yet.
	notStored := unstored(e)
	matched := map[string]bool{}
	objectAt := src.StateAt(out.end)
	for _, w := range controllerWrites(e, d.Applied, out.end) {
		if !w.created || slices.Contains(notStored, w.resource) {
			continue
		}
		h := historyOf(w.resource, w.namespace, ns)
		if !slices.Contains(histories, h) {
			out.unrecorded = append(out.unrecorded, fmt.Sprintf("%s in %q at %s", w.resource, w.namespace, w.at.Format("15:04:05.000")))
			continue
		}
		uid := w.uid
		if _, ok := first[uid]; uid == "" || !ok {
			uid = ""
			for _, u := range order {
				f := first[u]
				if matched[u] || f.at.Before(w.at) || !strings.HasPrefix(f.key, h+":"+w.namespace+"/") || (w.name != "" && f.key != SteadyKey(h, w.namespace, w.name)) {
					continue
				}
				uid = u
				break
			}
		}
		if uid == "" {
			continue
		}
		matched[uid] = true
		f := first[uid]
		o := objectAt[f.key]
		if o == nil || string(o.GetUID()) != uid {
			// Gone by the end: nothing to say of it but that it went.
			continue
		}
		mustGo(f.key, o, "created by the controller at "+w.at.Format("15:04:05.000"))
	}
	nss := map[string]bool{}
	for _, uid := range slices.Sorted(maps.Keys(out.must)) {
		m := out.must[uid]
		nss[keyNamespace(m.key)] = true
		o := objectAt[m.key]
		if o == nil || string(o.GetUID()) != uid {
			continue
		}
		what := fmt.Sprintf("%s %s (%s)", o.GetKind(), m.key, m.why)
		if o.GetDeletionTimestamp() != nil {
			what += fmt.Sprintf(" deleting, finalizers %v not released", o.GetFinalizers())
		} else {
			what += " not deleted"
		}
		out.left = append(out.left, what)
	}
	out.namespaces = slices.Sorted(maps.Keys(nss))
	slices.Sort(out.left)
	return out, nil
}

// leavesNothingBehind judges the deletion: the applied objects, what they
// owned and what the controller created from their application on are
// all gone within T (judgeDeletion).
func leavesNothingBehind(e *evidence.Evidence) error {
	del, err := judgeDeletion(e)
	if err != nil {
		return err
	}
	deadline := del.d.At.Add(del.within)
	var unknown error
	if len(del.unrecorded) > 0 {
		unknown = fmt.Errorf("%w: the controller created objects of resources no history recorded and fact %q does not name as never stored: %s", oracle.ErrNotEvaluated, FactSteadyUnstored, strings.Join(del.unrecorded, ", "))
	}
	switch {
	case len(del.left) > 0 && del.end.Before(deadline):
		return fmt.Errorf("%w: the evidence ends %s after the delete, before T=%s, with %d objects still there: %s", oracle.ErrNotEvaluated, del.end.Sub(del.d.At).Round(time.Millisecond), del.within, len(del.left), strings.Join(del.left, "; "))
	case len(del.left) > 0:
		return oracle.BrokeAt(deadline, fmt.Errorf("%s after the objects were deleted, %d are still there: %s", del.within, len(del.left), strings.Join(del.left, "; ")))
	}
	return unknown
}

// leavesNothingBound is leaves-nothing-behind's "bound" figure: how many
// objects had to go and where, what the subject's shared entries
// exempted, and what was not stored.
func leavesNothingBound(e *evidence.Evidence) string {
	del, err := judgeDeletion(e)
	if err != nil {
		return ""
	}
	var where []string
	for _, ns := range del.namespaces {
		if ns == "" {
			where = append(where, "cluster-scoped")
		} else {
			where = append(where, "namespace "+ns)
		}
	}
	text := fmt.Sprintf("%d objects had to go within %s (the applied, what they owned and what the controller created, in %s)", len(del.must), del.within, strings.Join(where, ", "))
	if len(del.exempted) > 0 {
		text += "; exempted as shared: " + strings.Join(del.exempted, ", ")
	}
	if u := unstored(e); len(u) > 0 {
		text += "; created but never stored by the API server: " + strings.Join(u, ", ")
	}
	return text
}

// noFinalizerOnDeleting is finalizer/P3 for any controller: no write of
// the controller, to any resource, refused by the API server for adding a
// finalizer to an object being deleted. The proxy keeps no request
// bodies; the API server refuses every such write, and its refusal is the
// evidence.
func noFinalizerOnDeleting(e *evidence.Evidence) error {
	r := read(e)
	r.proxyLogs()
	if err := r.missing(); err != nil {
		return err
	}
	return finalizersRefused(e, "")
}

// readinessBound is settles' and recovers' "bound" figure: how ready was
// decided, naming each applied custom resource that never had a status
// and has no readiness override. kstatus calls an object with no status
// Current as soon as it exists, so for those the verdict says only that
// they exist; the figure says so where a reader of the verdict sees it.
// Built-in kinds with no status by design (a ConfigMap, a Service) are
// not named. Empty when e lacks the steady-state facts.
func readinessBound(e *evidence.Evidence) string {
	r := read(e)
	keys := get(r, FactSteadyObjects)
	src, overrides, owed, objectsOwed := r.steadySource(), r.overrides(), r.statusOwed(), r.objectsOwed()
	if r.missing() != nil || len(keys) == 0 {
		return ""
	}
	overridden := map[string]bool{}
	var how []string
	for _, o := range overrides {
		overridden[o.Kind] = true
		switch {
		case o.Path == "":
			how = append(how, o.Kind+" once it exists")
		case o.Exists:
			how = append(how, fmt.Sprintf("%s once %s is set", o.Kind, o.Path))
		default:
			how = append(how, fmt.Sprintf("%s when %s is %s", o.Kind, o.Path, o.Value))
		}
	}
	last := map[string]*unstructured.Unstructured{}
	hadStatus := map[string]bool{}
	src.ReplayAfter(time.Time{}, func(_ time.Time, s oracle.State) {
		for _, k := range keys {
			obj := s[k]
			if obj == nil {
				continue
			}
			last[k] = obj
			if hasStatus(obj.Object) {
				hadStatus[k] = true
			}
		}
	})
	var statusless []string
	for _, k := range keys {
		obj := last[k]
		if obj == nil || hadStatus[k] || overridden[obj.GetKind()] || !customResource(k) {
			continue
		}
		statusless = append(statusless, obj.GetKind()+"/"+obj.GetName())
	}
	text := "ready: kstatus Current"
	if len(how) > 0 {
		text += "; by the subject's overrides: " + strings.Join(how, ", ")
	}
	owed = slices.DeleteFunc(owed, func(k string) bool { return overridden[k] })
	if len(owed) > 0 {
		text += "; after the last change, not before they have a status, as every clean reference run ended with one: " + strings.Join(owed, ", ")
	}
	if len(objectsOwed) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(objectsOwed)) {
			parts = append(parts, fmt.Sprintf("%d %s", objectsOwed[k], k))
		}
		text += "; after the last change, not before the objects own at least what every clean reference run ended with: " + strings.Join(parts, ", ")
	}
	if len(statusless) > 0 {
		text += fmt.Sprintf("; never given a status, so ready once they exist (a custom resource kstatus cannot judge; bind readiness.overrides to judge it): %s", strings.Join(statusless, ", "))
	}
	return text
}

// customResource says whether the applied object under the joined key k
// (SteadyKey) is of a custom resource: its history's group has a dot and
// is not one of Kubernetes' own (*.k8s.io); the core group and apps,
// batch and the like have none.
func customResource(k string) bool {
	_, group, found := strings.Cut(SteadyResource(k), ".")
	return found && strings.Contains(group, ".") && !strings.HasSuffix(group, ".k8s.io")
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
