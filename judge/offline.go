package judge

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// A Judge decides one property from a spec's evidence alone: nil when it
// held, an error when it broke (oracle.BrokeAt says when), and an error
// wrapping oracle.ErrNotEvaluated when the evidence lacks what it needs.
type Judge func(e *evidence.Evidence) error

// Offline judges every property of the catalog from evidence alone, by
// id. The suites judge these properties through it too. Evidence a judge
// needs and does not find leaves the property not evaluated.
//
// Each entry names its property by the catalog's variable and its judge
// by a function of this package (or a function that makes one, for the
// judges several properties share: converges, settles, injected): a
// search for the catalog's name (catalog.LostNoOvershoot) finds the
// entry, and the entry the function. Grouped by suite, in the catalog's
// order.
var Offline = map[string]Judge{
	catalog.EvidenceComplete.ID: complete,

	// The lostevents suite: expectations after lost events and a relist.
	catalog.LostEventWithheld.ID:   eventWithheld,
	catalog.LostNoOvershoot.ID:     noOvershoot,
	catalog.LostHealthyBefore.ID:   converges(catalog.LostHealthyBefore.ID),
	catalog.LostStormHappened.ID:   stormHappened,
	catalog.LostEventsDelayed.ID:   eventsDelayed,
	catalog.LostWatchStalled.ID:    watchStalled,
	catalog.LostCreateRecovered.ID: converges(catalog.LostCreateRecovered.ID),
	catalog.LostLaterScale.ID:      converges(catalog.LostLaterScale.ID),
	catalog.LostLateEvents.ID:      converges(catalog.LostLateEvents.ID),
	catalog.LostAfterStall.ID:      converges(catalog.LostAfterStall.ID),
	catalog.LostAfterStorm.ID:      converges(catalog.LostAfterStorm.ID),
	catalog.LostAfterFaults.ID:     converges(catalog.LostAfterFaults.ID),

	// The leader suite: leader-only work and failover.
	catalog.LeaderFollowerTerminated.ID: injected(chaos.ProcessFault{Action: chaos.Terminate}.Name()),
	catalog.LeaderHolderKilled.ID:       injected(chaos.LeaderFailover{}.Name()),
	catalog.LeaderPartitioned.ID:        partitioned,
	catalog.LeaderFailover.ID:           failover,
	catalog.LeaderOneWriter.ID:          oneWriter,

	// The foreground suite: status during foreground deletion and same-name races.
	catalog.FgReadyBefore.ID:       converges(catalog.FgReadyBefore.ID),
	catalog.FgOneCreateWins.ID:     oneCreateWins,
	catalog.FgOldDeleting.ID:       oldDeleting,
	catalog.FgBlockerNamed.ID:      converges(catalog.FgBlockerNamed.ID),
	catalog.FgDeletionCompletes.ID: converges(catalog.FgDeletionCompletes.ID),
	catalog.FgSuccessorReady.ID:    successorReady,
	catalog.FgDeletingStatus.ID:    claimDeletingStatus,
	catalog.FgDeletionBlocked.ID:   deletionBlocked,
	catalog.FgNoDeleteInUse.ID:     noDeleteInUse,

	// The finalizer suite: finalizers around a move.
	catalog.FinRanBefore.ID:     converges(catalog.FinRanBefore.ID),
	catalog.FinMoverFinished.ID: moverRan,
	catalog.FinP1.ID:            afterMove(catalog.FinP1.ID),
	catalog.FinRunsAfterMove.ID: afterMove(catalog.FinRunsAfterMove.ID),
	catalog.FinP1Back.ID:        converges(catalog.FinP1Back.ID),
	catalog.FinRunsAfterBack.ID: converges(catalog.FinRunsAfterBack.ID),
	catalog.FinReleased.ID:      converges(catalog.FinReleased.ID),
	catalog.FinP2.ID:            noZombies,
	catalog.FinP3.ID:            finalizersHonoured,
	catalog.FinP4.ID:            noCleanupPaused,

	// Exploration.
	catalog.ExploreStepsActed.ID: StepsActed,

	// The control plane's suite: the cluster under the suites.
	catalog.CPReplicaSetScalesUp.ID:   replicaSetConverged(catalog.CPReplicaSetScalesUp.ID),
	catalog.CPReplicaSetScalesDown.ID: replicaSetConverged(catalog.CPReplicaSetScalesDown.ID),
	catalog.CPGCHoldsOwner.ID:         gcHoldsOwner,
	catalog.CPGCRemovesOwner.ID:       converges(catalog.CPGCRemovesOwner.ID),

	// The reconcile suite: any controller, on the objects it reconciles.
	catalog.SteadySettles.ID:          settles(FactSteadySettle),
	catalog.SteadyRecovers.ID:         settles(FactSteadyRecover),
	catalog.SteadyQuiescent.ID:        quiescent,
	catalog.SteadyLeavesNothing.ID:    leavesNothingBehind,
	catalog.SteadyRestarted.ID:        restartedAfterFirstWrite,
	catalog.SteadyStaleView.ID:        staleView,
	catalog.SteadyMissedEvents.ID:     missedEvents,
	catalog.SteadyWritesRefused.ID:    writesRefused,
	catalog.SteadySameEndState.ID:     sameEndState,
	catalog.SteadyNoChurn.ID:          noChurn,
	catalog.SteadyNoFinalizer.ID:      noFinalizerOnDeleting,
	catalog.SteadyActs.ID:             acts,
	catalog.SteadyNoPanic.ID:          noPanic,
	catalog.SteadyRestartedSettled.ID: restartedOnceSettled,
	catalog.SteadyRestartedCreates.ID: restartedAfterFirstCreates,
}

// eventWithheld judges catalog.LostEventWithheld.
func eventWithheld(e *evidence.Evidence) error {
	r := read(e)
	replica, pod := get(r, FactReplica), get(r, FactLostPod)
	p := r.proxy(replica)
	if err := r.missing(); err != nil {
		return err
	}
	if msg, _ := FactInjectError.Lookup(e); msg != "" {
		return errors.New(msg)
	}
	// Without the pod history every delivery of the pod breaks the
	// premise: stricter, never a premise held on missing evidence.
	pods, _ := e.History(HistoryPods)
	// The lost pod is the workload's, in its namespace: a pod of the
	// same name elsewhere (a StatefulSet's web-2 of another spec) is
	// another pod. Evidence without the workload matches any.
	workload, _ := FactWorkload.Lookup(e)
	ns, _, _ := strings.Cut(workload, "/")
	return Withheld(p.Events, ns, pod, pods)
}

// noOvershoot judges catalog.LostNoOvershoot.
func noOvershoot(e *evidence.Evidence) error {
	r := read(e)
	key, path := get(r, FactWorkload), get(r, FactReplicasPath)
	w, p := r.history(HistoryWorkload), r.history(HistoryPods)
	if err := r.missing(); err != nil {
		return err
	}
	excused, err := excusedCreates(e, p.Events())
	if err != nil {
		return err
	}
	err = NoOvershoot(w.Events(), p.Events(), SpecReplicas(key, path), excused)
	if errors.Is(err, oracle.ErrNotEvaluated) {
		return fmt.Errorf("%w (fact %q is %q, history %q)", err, FactReplicasPath, path, HistoryWorkload)
	}
	return err
}

// oneWriter judges catalog.LeaderOneWriter.
func oneWriter(e *evidence.Evidence) error {
	r := read(e)
	key, lease, _ := get(r, FactLease), r.history(HistoryLease), r.proxyLogs()
	if err := r.missing(); err != nil {
		return err
	}
	only, _ := FactLeaderOnly.Lookup(e)
	return OnlyHolderWrites(lease, key, LeaderOnly(only), requests(e))
}

// claimDeletingStatus judges catalog.FgDeletingStatus.
func claimDeletingStatus(e *evidence.Evidence) error {
	r := read(e)
	key, deleted, window, h := get(r, FactClaim), get(r, FactDeleted), get(r, FactWindow), r.history(HistoryClaims)
	if err := r.missing(); err != nil {
		return err
	}
	owed := deleted
	if FactHealthyFrom.Has(e) {
		if healthy := get(r, FactHealthyFrom); healthy.After(owed) {
			owed = healthy
		}
	}
	if err := r.missing(); err != nil {
		return err
	}
	return DeletingStatus(h, key, seenFrom(e, h, key, deleted, owed), window, e.End)
}

// deletionBlocked judges catalog.FgDeletionBlocked.
//
// The premise states the harness's block only: what the subject's
// deletion then does is deletion-completes'.
func deletionBlocked(e *evidence.Evidence) error {
	r := read(e)
	if FactBlocked.Has(e) {
		keys, h := get(r, FactBlocked), r.history(HistoryBlocked)
		if err := r.missing(); err != nil {
			return err
		}
		fin, _ := FactBlockFinalizer.Lookup(e)
		return BlockInPlace(h, keys, fin)
	}
	if FactRefusingDeletes.Has(e) {
		get(r, FactRefusingDeletes)
		return r.missing()
	}
	if !FactExternalName.Has(e) {
		return fmt.Errorf("%w: neither fact %q (a deletion blocked by finalizers) nor fact %q (by an external object): %w", oracle.ErrNotEvaluated, FactBlocked, FactExternalName, evidence.ErrMissing)
	}
	name, ops := get(r, FactExternalName), r.ops()
	if err := r.missing(); err != nil {
		return err
	}
	return DeletionBlocked(ops, name)
}

// noDeleteInUse judges catalog.FgNoDeleteInUse.
func noDeleteInUse(e *evidence.Evidence) error {
	r := read(e)
	name, old, successor, ops := get(r, FactExternalName), get(r, FactOldOwner), get(r, FactNewOwner), r.ops()
	if err := r.missing(); err != nil {
		return err
	}
	return NoDeleteInUse(ops, name, old, successor)
}

// noZombies judges catalog.FinP2.
//
// P2: a zombie is one whoever left it; but when the mover stopped
// half way, none seen does not say the move left none.
func noZombies(e *evidence.Evidence) error {
	err := eachCluster(e, func(r *reader, c string) error {
		fin, h := get(r, FactFinalizer), r.history(c+"/clusters")
		if err := r.missing(); err != nil {
			return err
		}
		_, err := NoneStuck(h, e.End, fin, pausedPath(e), c)
		return err
	})
	if err == nil {
		return moverStopped(e, catalog.FinP2.ID)
	}
	return err
}

// finalizersHonoured judges catalog.FinP3.
func finalizersHonoured(e *evidence.Evidence) error {
	r := read(e)
	res, _ := get(r, FactResource), r.proxyLogs()
	if err := r.missing(); err != nil {
		return err
	}
	var movers []error
	for _, fact := range []Fact[string]{FactMoverError, FactMoverBackError} {
		msg, _ := fact.Lookup(e)
		movers = append(movers, MoverRefused(fact.Name, msg))
	}
	return finalizersRefused(e, res, movers...)
}

// noCleanupPaused judges catalog.FinP4.
func noCleanupPaused(e *evidence.Evidence) error {
	return eachCluster(e, func(r *reader, c string) error {
		label, clusters, cleanups := get(r, FactCleanupUIDLabel), r.history(c+"/clusters"), r.history(c+"/cleanups")
		if err := r.missing(); err != nil {
			return err
		}
		return NoCleanupWhilePaused(clusters.Events(), cleanups.Events(), label, pausedPath(e), c)
	})
}

// Withheld is the lost-events premise: the re-watch was answered 410
// Expired by the proxy, and the replica never saw the pod alive: it got no
// event for the pod, or, where pods (the recorded pod history, may be nil)
// shows the object an event carried already deleting, only such events.
// A pod the harness deleted that a finalizer holds (the Job controller's
// batch.kubernetes.io/job-tracking) is handed back deleting by the relist:
// its creation was still withheld, and a controller that, like
// Kubernetes' own, does not count a pod first seen deleting as the create
// it expected still has a create it never observed.
//
// The pod is named in namespace; "" matches the name in any namespace.
func Withheld(events []proxy.Event, namespace, pod string, pods *oracle.History) error {
	if !slices.ContainsFunc(events, func(e proxy.Event) bool { return e.Type == "ERROR" && e.Code == 410 && e.Fault != "" }) {
		return errors.New("the proxy recorded no 410 Expired answer to a re-watch")
	}
	deleting := map[string]bool{}
	// A pod of the lost pod's name made once it was gone (a StatefulSet's
	// replacement web-2) is another pod: told apart by its uid, where the
	// pod history says which revision is whose. The lost pod is the first
	// of its name the history shows deleting or deleted.
	uidAt := map[string]string{}
	lost := ""
	if pods != nil {
		for _, ev := range pods.Events() {
			if ev.Object == nil {
				continue
			}
			at := ev.Key + "@" + ev.Object.GetResourceVersion()
			uidAt[at] = string(ev.Object.GetUID())
			if ev.Object.GetDeletionTimestamp() != nil {
				deleting[at] = true
			}
			if lost == "" && namespace != "" && ev.Key == namespace+"/"+pod && (ev.Type == "DELETED" || ev.Object.GetDeletionTimestamp() != nil) {
				lost = string(ev.Object.GetUID())
			}
		}
	}
	seenDeleting := func(e proxy.Event) bool {
		return e.ResourceVersion != "" && deleting[e.Namespace+"/"+e.Name+"@"+e.ResourceVersion]
	}
	another := func(e proxy.Event) bool {
		uid, ok := uidAt[e.Namespace+"/"+e.Name+"@"+e.ResourceVersion]
		return lost != "" && ok && uid != lost
	}
	if i := slices.IndexFunc(events, func(e proxy.Event) bool {
		return e.Name == pod && (namespace == "" || e.Namespace == namespace) && e.Delivered && !seenDeleting(e) && !another(e)
	}); i >= 0 {
		return fmt.Errorf("the subject got %s pod/%s/%s at %s: the lost create was not hidden", events[i].Type, events[i].Namespace, pod, events[i].At.Format("15:04:05.000"))
	}
	return nil
}

// finalizersRefused is P3 on every replica's proxy log (NoFinalizerRefused
// on resource, every resource for ""), with other refusals already found:
// broken at any refusal, else not evaluated where a 422 kept no message.
func finalizersRefused(e *evidence.Evidence, resource string, found ...error) error {
	broken, unknown := found, []error(nil)
	for _, id := range slices.Sorted(maps.Keys(e.Proxies)) {
		if err := NoFinalizerRefused(e.Proxies[id].Requests, resource); errors.Is(err, oracle.ErrNotEvaluated) {
			unknown = append(unknown, err)
		} else {
			broken = append(broken, err)
		}
	}
	if err := errors.Join(broken...); err != nil {
		return err
	}
	return errors.Join(unknown...)
}

// complete is nil when every history of the evidence is complete and
// every replica's proxy could read every watch it carried.
func complete(e *evidence.Evidence) error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(e.Incomplete)) {
		errs = append(errs, fmt.Errorf("%s: %s", name, e.Incomplete[name]))
	}
	for _, id := range slices.Sorted(maps.Keys(e.Proxies)) {
		if why := e.Proxies[id].Incomplete; why != "" {
			errs = append(errs, fmt.Errorf("the proxy log of %s: %s", id, why))
		}
		if i := slices.IndexFunc(e.Proxies[id].Requests, func(r proxy.Request) bool { return r.Fault == proxy.RefusedEncoding }); i >= 0 {
			r := e.Proxies[id].Requests[i]
			errs = append(errs, fmt.Errorf("the proxy of %s refused its %s watch of %s: the stream's encoding cannot be faulted or recorded (see the request's answer)", id, r.Resource, r.Start.Format("15:04:05.000")))
		}
	}
	return errors.Join(errs...)
}

// reader reads what a judge needs from evidence and keeps the first thing
// that is missing.
type reader struct {
	e   *evidence.Evidence
	err error
}

func read(e *evidence.Evidence) *reader { return &reader{e: e} }

func (r *reader) keep(err error) {
	if r.err == nil {
		r.err = err
	}
}

// get is f's value in r's evidence; a fact missing or unreadable is kept
// as r's error.
func get[T any](r *reader, f Fact[T]) T {
	v, err := f.Get(r.e)
	r.keep(err)
	return v
}

func (r *reader) history(name string) *oracle.History {
	h, err := r.e.History(name)
	r.keep(err)
	if h == nil {
		h = oracle.NewHistory()
	}
	return h
}

func (r *reader) proxy(identity string) evidence.ProxyLog {
	p, ok := r.e.Proxies[identity]
	if !ok {
		r.keep(fmt.Errorf("proxy log of %q: %w", identity, evidence.ErrMissing))
	}
	return p
}

// proxyLogs are the replicas' proxy logs, in the order of their
// identities: a judge of what the subject requested or saw needs at least
// one (with none, nothing is known of it, which is not "nothing").
func (r *reader) proxyLogs() []evidence.ProxyLog {
	if len(r.e.Proxies) == 0 {
		r.keep(fmt.Errorf("the replicas' proxy logs: %w", evidence.ErrMissing))
	}
	return proxyLogs(r.e)
}

func (r *reader) ops() []Op {
	var ops []Op
	r.keep(r.e.Log(LogExternal, &ops))
	return ops
}

// missing is the first missing piece as a not-evaluated error, or nil.
func (r *reader) missing() error {
	if r.err == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", oracle.ErrNotEvaluated, r.err)
}

func eachCluster(e *evidence.Evidence, judge func(r *reader, cluster string) error) error {
	list, err := FactClusters.Get(e)
	if err != nil {
		return fmt.Errorf("%w: %w", oracle.ErrNotEvaluated, err)
	}
	var errs []error
	for _, c := range list {
		errs = append(errs, judge(read(e), c))
	}
	return errors.Join(errs...)
}

// excusedCreates are the pods no-overshoot excuses (ExcusedCreates): none
// when the evidence names no expectation timeout. A timeout with no proxy
// logs to tell what the subject saw and created leaves the property not
// evaluated.
func excusedCreates(e *evidence.Evidence, pods []oracle.Event) (*Excused, error) {
	if !FactExpectationTimeout.Has(e) {
		return nil, nil
	}
	timeout, err := FactExpectationTimeout.Get(e)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", oracle.ErrNotEvaluated, err)
	}
	if timeout <= 0 {
		return nil, nil
	}
	r := read(e)
	logs := r.proxyLogs()
	if err := r.missing(); err != nil {
		return nil, err
	}
	return ExcusedCreates(UnseenCreates(pods, logs), timeout, e.End), nil
}

func requests(e *evidence.Evidence) map[string][]proxy.Request {
	out := map[string][]proxy.Request{}
	for id, p := range e.Proxies {
		out[id] = p.Requests
	}
	return out
}

// pausedPath is the evidence's pause flag path, DefaultPausedPath when it
// names none (evidence from before subjects could bind it).
func pausedPath(e *evidence.Evidence) string {
	if p, _ := FactPausedPath.Lookup(e); p != "" {
		return p
	}
	return DefaultPausedPath
}

// BoundText is the bound property id was judged against on e, for its
// record's figures ("bound") and the summaries that print them: the
// excusal cap of no-overshoot, the start cap of deleting-status, what
// same-end-state and no-churn compared against, and how settles and
// recovers decided readiness. Empty for the other properties (a
// convergence waited on records its own bound) and when e lacks the facts
// that set it.
func BoundText(id string, e *evidence.Evidence) string {
	switch id {
	case catalog.LostNoOvershoot.ID:
		if !FactExpectationTimeout.Has(e) {
			return ""
		}
		timeout, err := FactExpectationTimeout.Get(e)
		if err != nil || timeout <= 0 {
			return "spec.replicas, nothing excused (no expectation timeout)"
		}
		return fmt.Sprintf("spec.replicas; excused: the subject's own creates made while a pod stayed unseen past the %s expectation timeout, until %s after it was seen", timeout, timeout)
	case catalog.SteadySameEndState.ID:
		return sameEndStateBound(e)
	case catalog.SteadyNoChurn.ID:
		return noChurnBound(e)
	case catalog.SteadySettles.ID, catalog.SteadyRecovers.ID:
		return readinessBound(e)
	case catalog.SteadyLeavesNothing.ID:
		return leavesNothingBound(e)
	case catalog.SteadyQuiescent.ID:
		return quiescentBound(e)
	case catalog.FgDeletingStatus.ID:
		window, err := FactWindow.Get(e)
		if err != nil {
			return ""
		}
		return fmt.Sprintf("T=%s W=%s from the later of the delete, the recovery and the subject's first sight of the delete (at most %s after them)", DeletingWithin, window, ReflectorBackoff)
	}
	return ""
}
