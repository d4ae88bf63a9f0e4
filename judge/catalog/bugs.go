package catalog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/steadystate-dev/steadystate/internal/renamed"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// Bug is one seeded bug of a reference controller.
type Bug struct {
	// Name is the --bug value.
	Name string
	// Component is the refctl command that has the bug.
	Component string
	// Subject is the reference subject (SUBJECT) it belongs to.
	Subject string
	// Suite must catch it.
	Suite string
	// Breaks are the exact ids of the properties it must break: every one
	// of them, and no other.
	Breaks []string
	// Origin is the upstream issue it reproduces, or "synthetic: " and the
	// textbook bug it stands for.
	Origin string
	// Slow marks a bug whose every spec waits out a deadline, so that a
	// run of its cell takes several times a correct one's: a matrix starts
	// it first, lest it set the tail.
	Slow bool
}

// Synthetic reports whether the bug stands for a textbook bug rather than
// reproducing an upstream one.
func (b Bug) Synthetic() bool { return strings.HasPrefix(b.Origin, "synthetic") }

// Bugs is every seeded bug, in the self-test's order.
var Bugs = []Bug{
	{Name: "expectations-never-expire", Component: "workload", Subject: "workload", Suite: "lostevents",
		Breaks: []string{LostCreateRecovered.ID, LostLaterScale.ID},
		Origin: "openkruise/kruise#1765 (fixed behind a feature gate by #1829)"},
	{Name: "no-expectations", Component: "workload", Subject: "workload", Suite: "lostevents",
		Breaks: []string{LostNoOvershoot.ID},
		Origin: "synthetic: a controller with no scale expectations acts on a stale cache and runs too many pods"},
	{Name: "start-leader-runnables-on-shutdown", Component: "leader", Subject: "leader", Suite: "leader",
		Breaks: []string{LeaderOneWriter.ID},
		Origin: "kubernetes-sigs/controller-runtime#2719 (fixed by #2724)"},
	{Name: "ignore-lost-lease", Component: "leader", Subject: "leader", Suite: "leader",
		Breaks: []string{LeaderOneWriter.ID},
		Origin: "synthetic: a leader that keeps doing leader-only work after it lost its Lease (split brain)"},
	{Name: "deleting-status-not-persisted", Component: "composite", Subject: "composite", Suite: "foreground",
		// The reconciler returns before writing status at all, so the
		// blocker's name never reaches the stored claim either (upstream
		// v1.15 also has the unfixed bug (b)).
		Breaks: []string{FgDeletingStatus.ID, FgBlockerNamed.ID},
		Origin: "crossplane/crossplane#5416 (fixed by #5425)"},
	{Name: "no-blocking-reason", Component: "composite", Subject: "composite", Suite: "foreground",
		Breaks: []string{FgBlockerNamed.ID},
		Origin: "crossplane/crossplane#5416's class, bug (b) of the foreground-deletion class in docs/design.md: nothing on the claim names the undeletable Managed (unfixed upstream)"},
	{Name: "external-name-reuse", Component: "composite", Subject: "composite", Suite: "foreground",
		Breaks: []string{FgSuccessorReady.ID, FgNoDeleteInUse.ID},
		Origin: "crossplane/crossplane#5416's class, bug (c) of the foreground-deletion class in docs/design.md: two Managed for one external resource (unfixed upstream)"},
	{Name: "strip-then-delete", Component: "move", Subject: "cluster", Suite: "finalizer",
		Breaks: []string{FinP1.ID, FinP2.ID},
		Origin: "kubernetes-sigs/cluster-api#11812 (fixed by #11814)"},
	{Name: "finalizer-while-deleting", Component: "cluster", Subject: "cluster", Suite: "finalizer",
		Breaks: []string{FinP3.ID},
		Origin: "synthetic: a controller that adds its finalizer without checking deletionTimestamp (the API server answers 422)"},
	{Name: "cleanup-while-paused", Component: "cluster", Subject: "cluster", Suite: "finalizer",
		Breaks: []string{FinP4.ID},
		Origin: "synthetic: a controller that runs external cleanup for a paused object being deleted"},
	{Name: "status-hot-loop", Component: "composite", Subject: "composite", Suite: "reconcile",
		Breaks: []string{SteadyQuiescent.ID},
		Origin: "synthetic: a status hot loop: a controller that stamps status with the time of every reconcile (a condition's lastTransitionTime as a heartbeat) and writes it whether or not anything changed, so its own write and each resync bring another"},
	{Name: "recreate-children-on-restart", Component: "composite", Subject: "composite", Suite: "reconcile",
		// Its children are made again with the same names, specs and
		// status, so the end state is the reference's: only the writes
		// show it.
		Breaks: []string{SteadyNoChurn.ID},
		Origin: "synthetic: a controller that knows its children only from memory: after a restart it deletes the children it finds and makes them again instead of adopting them"},
	{Name: "release-finalizer-early", Component: "composite", Subject: "composite", Suite: "reconcile",
		Breaks: []string{SteadyLeavesNothing.ID},
		Origin: "synthetic: a finalizer released before the cleanup it guards: the claim goes at once, and the Composite it made (no ownerReference) is left behind with its Managed"},
	{Name: "delete-orphans-from-cache", Component: "composite", Subject: "composite", Suite: "reconcile",
		// The Composite deleted is made again, with the same name, spec
		// and status, and the Claim (read fresh, its status written as
		// it goes) ends Ready as in the reference: only the creates show
		// it (a stale view, and missed events until the relist).
		Breaks: []string{SteadyNoChurn.ID},
		Origin: "synthetic: a stale cache's orphan cleanup (Sieve's staleness class): a child whose parent its informer cache does not list is deleted as an orphan without a fresh read, while the cache is behind the parent's change the child already carries"},
	{Name: "skip-changes-on-relist", Component: "composite", Subject: "composite", Suite: "reconcile",
		// The Claim's status.observedGeneration stays behind its
		// generation: kstatus has it in progress for good (it does not
		// recover), and the end state differs from the reference's.
		Breaks: []string{SteadyRecovers.ID, SteadySameEndState.ID},
		Origin: "synthetic: an edge-triggered controller with a watch loop of its own that takes a relist as the state it already handled: a spec change whose watch event was lost before a 410 relist is never acted on"},

	// The stack controller's: each aimed at one hole of the steady-state
	// judges (an unowned, applied, uid-named, cluster-scoped or
	// other-namespace child; a restart; a refused write; a condition
	// beside Ready). "Restarted" is a process that found, at its first
	// pass over the Stack, the Stack already carrying its finalizer.
	stackBug("unowned-child-stale-after-refusal", "edge-triggered sync of a child: the controller syncs its server-side-applied, unowned mirror only in the pass a spec change's event marked, and a refused write loses the mark: the mirror keeps the old spec for good",
		SteadySameEndState),
	stackBug("cluster-child-recreated-on-start", "a controller that does not adopt the cluster-scoped object it made for a namespaced one (no ownerReference can tie them): restarted, it deletes the one it finds and makes it again",
		SteadyNoChurn),
	stackBug("leak-in-other-namespace", "a cleanup that looks in the object's own namespace only: the record the controller keeps in another namespace (default) is never deleted",
		SteadyLeavesNothing),
	stackBug("leak-by-apply", "a cleanup that forgets the child it makes by server-side apply (a PATCH answered 201, never a create) with no ownerReference: it is left behind",
		SteadyLeavesNothing),
	stackBug("churn-by-deletecollection", "a controller that rebuilds its children after a restart: one label-selected deletecollection, then each applied again server-side (a PATCH answered 201)",
		SteadyNoChurn),
	stackBug("resurrect-on-delete", "a late write after the finalizer's release: a background apply from a snapshot taken before the cleanup brings the deleted mirror back once the Stack is gone",
		SteadyLeavesNothing),
	// kstatus reads neither Available nor Synced nor Degraded: a judge
	// that reads conditions beside Ready catches these three.
	stackBug("never-available", "a controller whose Available condition never turns True (MinimumReplicasUnavailable, a probe that never passes) while it reports Ready=True",
		SteadySettles, SteadyRecovers),
	stackBug("synced-false", "a controller that reports Synced=False (ReconcileError) for good while everything it made is in place",
		SteadySettles, SteadyRecovers),
	stackBug("degraded-always", "a controller that reports a Degraded=True condition for good beside Ready=True",
		SteadySettles, SteadyRecovers),
	// Degraded from the restart on: no recovery after a restart settles,
	// so the changes after it are not made and the end state is not
	// compared (same-end-state not bound, as for slow-after-refusal).
	stackBug("degraded-after-restart", "a controller that marks itself Degraded when, restarted, it finds objects it did not make in this process, and never clears the mark",
		SteadyRecovers),
	stackBug("drop-field-after-refusal", "a retry path that rebuilds a child from a partial template after a refused write, dropping a field set once at the child's creation (a generated token)",
		SteadySameEndState),
	stackBug("status-rewrite-every-30s", "a status heartbeat: a condition's lastTransitionTime rewritten every 30 s whether or not anything changed",
		SteadyQuiescent),
	stackBug("hot-loop-after-restart", "a status hot loop that starts with a restart: the Synced condition's lastTransitionTime stamped on every pass, requeued every second",
		SteadyQuiescent),
	// Only the second clean run, with its quiet window, leaves it idle
	// that long: it writes nothing in the window and does not act on the
	// change after it, which the first clean run's drew a write for.
	stackBug("hang-after-settling", "a deadlock that shows once the controller is idle: after 25 s with nothing to write its reconciles block for good (a lock never released) while its process and watches stay up, so it no longer acts on the next change",
		SteadyQuiescent, SteadySettles),
	stackBug("dangling-uid-after-restart", "a status field that records a child's uid once and never again: restarted, the controller makes the child again, and the status names a uid no object holds",
		SteadyNoChurn, SteadySameEndState),
	stackBug("stray-finalizer-after-restart", "a controller that, restarted, puts a finalizer of its own on a child it owns (and takes it off in its cleanup): the child's end state is not a clean run's",
		SteadySameEndState),
	stackBug("owner-not-controller-after-restart", "an adoption that rewrites a child's ownerReference without controller=true after a restart: the child is owned, no longer controlled",
		SteadySameEndState),
	stackBug("secret-not-resynced-after-restart", "a copy of a Secret kept in step only by the process that made it: restarted, the controller never copies a rotation of the source Secret",
		SteadySameEndState),
	stackBug("recreate-children-on-start", "a controller that knows its owned children only from memory: restarted, it deletes each one it finds (configuration, ledger, credentials) and makes it again",
		SteadyNoChurn),
	stackBug("panic-every-reconcile", "a nil pointer dereferenced on every reconcile and recovered by controller-runtime: the controller logs a panic each time and never writes",
		SteadyActs, SteadyNoPanic),
	stackBug("second-finalizer-while-deleting", "a controller that adds a second finalizer of its own to an object already being deleted (the API server answers 422), as finalizer-while-deleting does in Cluster API's shape, seen by the reconcile suite",
		SteadyNoFinalizer),
	stackBug("slow-after-refusal", "an over-long backoff: after a refused write the object's status is left alone for 60 s (its children still synced), longer than any bound of recovery",
		SteadyRecovers),
	stackBug("watch-never-back", "a watch loop of its own that takes an error event for the end of the stream: after a forced relist's 410 Expired it never watches Stacks again, and no later change of a Stack is acted on",
		SteadyRecovers),
	stackBug("leak-cluster-child", "a cleanup that forgets the cluster-scoped object made for a namespaced one (no ownerReference, so no garbage collection either)",
		SteadyLeavesNothing),
	slow(stackBug("finalizer-never-released", "a cleanup that runs to its end but never removes its finalizer: the object stays deleting for good",
		SteadyLeavesNothing)),
	stackBug("extra-child-after-refusal", "a retry path that, after a refused write, makes a new child with a generated name instead of retrying the write: one more owned object than a clean run",
		SteadySameEndState, SteadyNoChurn),
	// Ready is True for 0.25 s of every 3 (W is 2 s): no phase ever
	// settles, so no quiet window is watched and the references did not
	// settle (nothing is compared): settles and recovers only.
	stackBug("status-flaps", "a flapping condition: once everything is in place, Ready turns False and True again every 3 s (True for a quarter second of them) forever, never ready for a settle window",
		SteadySettles, SteadyRecovers),
	stackBug("stale-tier-status-after-restart", "a status field kept only by the process that first set it: restarted, the controller no longer updates status.tier, while observedGeneration follows",
		SteadySameEndState),
	stackBug("ledger-recreated-on-start", "a child named from a random suffix where it should be named from its owner's uid: restarted, the controller deletes the uid-named child and makes one under a random name, and its steady path then makes the uid-named one again: two are left",
		SteadyNoChurn, SteadySameEndState),
	stackBug("orphan-mirror-on-relist", "a stale cache's orphan check (Sieve's staleness class): the mirror, applied from a fresh read of its Stack, records the Stack's generation, and is deleted as an earlier Stack's orphan while the informer cache still shows the Stack at an older generation (a stalled watch, a lost event before a relist); the next pass applies it again",
		SteadyNoChurn),
	stackBug("churn-in-other-namespace", "a controller that, restarted, deletes the record it keeps in another namespace (default) and makes it again",
		SteadyNoChurn),
	stackBug("cluster-child-stale-after-restart", "a cluster-scoped child kept in step only by the process that made it: restarted, the controller no longer updates the Slot's tier",
		SteadySameEndState),
	// Only the applied Stack's own spec.slotName is wrong: its status,
	// its children and its metadata are right. A comparison of the
	// applied objects' status and metadata alone passes it.
	stackBug("slot-name-rewritten-after-restart", "a field of the user's object that the controller owns, rewritten wrongly: restarted, the controller writes the Stack's spec.slotName in an older version's format (the Stack's name alone, which names no Slot) and takes it for right from then on",
		SteadySameEndState),
}

// stackBug is a seeded bug of refctl stack, for the reconcile suite:
// synthetic, standing for the textbook bug origin describes.
func stackBug(name, origin string, breaks ...verdict.Property) Bug {
	ids := make([]string, len(breaks))
	for i, p := range breaks {
		ids[i] = p.ID
	}
	return Bug{Name: name, Component: "stack", Subject: "stack", Suite: "reconcile", Breaks: ids, Origin: "synthetic: " + origin}
}

// slow marks b Slow.
func slow(b Bug) Bug {
	b.Slow = true
	return b
}

// Suites are the suites, in order: the reference subjects each runs in the
// self-test, and the capability (a subject file's key under capabilities)
// a subject must have for the suite to run it.
var Suites = []Suite{
	{Name: "lostevents", Subject: "workload", Capability: "scalableWorkload"},
	{Name: "leader", Subject: "leader", Capability: "leaderElected"},
	{Name: "foreground", Subject: "composite", Capability: "foregroundComposite"},
	{Name: "finalizer", Subject: "cluster", Capability: "movableResource"},
	// The reconcile suite judges any controller, so it is proved on
	// two: the composite's seeded bugs and the stack's, many more, each
	// aimed at one hole of its judges.
	{Name: renamed.ReconcileSuite, Subject: "composite", Capability: renamed.ReconcileCapability, Others: []string{"stack", "stack-unwatched", "stack-templated"}},
}

// Suite is a suite of the catalog: its name, the reference subject it runs
// in the self-test (Subject, then Others), and the capability a subject
// needs for it.
type Suite struct {
	Name, Subject, Capability string
	// Others are more reference subjects the self-test runs the suite
	// against, each in its correct mode and with each of its bugs.
	Others []string
}

// Subjects are the reference subjects the self-test runs the suite
// against: Subject first, then Others.
func (s Suite) Subjects() []string { return append([]string{s.Subject}, s.Others...) }

// SubjectNames lists every reference subject of the self-test, each once,
// in the order of Suites.
func SubjectNames() []string {
	var names []string
	for _, s := range Suites {
		for _, n := range s.Subjects() {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}

// Lookup finds a bug by name.
func Lookup(name string) (Bug, bool) {
	i := slices.IndexFunc(Bugs, func(b Bug) bool { return b.Name == name })
	if i < 0 {
		return Bug{}, false
	}
	return Bugs[i], true
}

// BugsOf lists the names of a component's bugs.
func BugsOf(component string) []string {
	var names []string
	for _, b := range Bugs {
		if b.Component == component {
			names = append(names, b.Name)
		}
	}
	return names
}

// SuiteNames lists every suite's name, in the order of Suites.
func SuiteNames() []string {
	names := make([]string, len(Suites))
	for i, s := range Suites {
		names[i] = s.Name
	}
	return names
}

// Names lists every bug's name.
func Names() []string {
	names := make([]string, len(Bugs))
	for i, b := range Bugs {
		names[i] = b.Name
	}
	return names
}

// ValidateBug accepts "" (the correct mode) or a bug of component, and
// otherwise says which bugs are valid and where a misplaced one belongs.
func ValidateBug(component, bug string) error {
	valid := BugsOf(component)
	if bug == "" || slices.Contains(valid, bug) {
		return nil
	}
	if b, ok := Lookup(bug); ok {
		return fmt.Errorf("--bug=%s belongs to refctl %s, not refctl %s; valid here: %s", bug, b.Component, component, strings.Join(valid, ", "))
	}
	return fmt.Errorf("unknown --bug=%s for refctl %s; valid: %s (or none for the correct mode)", bug, component, strings.Join(valid, ", "))
}
