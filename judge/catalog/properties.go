package catalog

import (
	"fmt"
	"slices"

	"github.com/steadystate-dev/steadystate/judge/verdict"
)

func p(id string, stage verdict.Stage, sentence string) verdict.Property {
	return verdict.Property{ID: id, Stage: stage, Sentence: sentence}
}

// EvidenceComplete is checked in every spec: a recorder that lost events
// (its watch ended in a 410 and would have had to relist) makes the spec
// an error, never a pass.
var EvidenceComplete = p("evidence/complete", verdict.Assumption, "every recorded history is complete: no watch had to relist or fell behind")

// Lost events (OpenKruise CloneSet; docs/design.md, the lost-events class).
var (
	LostHealthyBefore   = p("lostevents/healthy-before-fault", verdict.Assumption, "the workload converged before the fault (its status and its live pods)")
	LostEventWithheld   = p("lostevents/event-withheld", verdict.Assumption, "the new pod's ADDED event was withheld from the subject and its re-watch answered 410 Expired")
	LostStormHappened   = p("lostevents/storm-happened", verdict.Assumption, "the pod deletion storm deleted pods")
	LostCreateRecovered = p("lostevents/recovers-lost-create", verdict.Convergence, "status.replicas and the live pods converge to spec.replicas after the lost create, within the expectation timeout plus the recovery margin")
	LostLaterScale      = p("lostevents/later-scale-acted-on", verdict.Convergence, "a later scale change is acted on within 30s")
	LostLateEvents      = p("lostevents/converges-late-events", verdict.Convergence, "status.replicas and the live pods converge to spec.replicas within T while pod events arrive late")
	LostAfterStall      = p("lostevents/converges-after-stall", verdict.Convergence, "status.replicas and the live pods converge to spec.replicas after a stalled pod watch resumes")
	LostAfterStorm      = p("lostevents/converges-after-storm", verdict.Convergence, "status.replicas and the live pods converge to spec.replicas after a pod deletion storm")
	LostAfterFaults     = p("lostevents/converges-after-faults", verdict.Convergence, "status.replicas and the live pods converge to spec.replicas within the expectation timeout plus the recovery margin (after a pod deletion, the longer of it and replaceWithin) once every fault of an exploration schedule is recovered")
	LostNoOvershoot     = p("lostevents/no-overshoot", verdict.Invariant, "never more live pods than spec.replicas at that moment (a scale-down's pods may still be going; a pod made once the subject had not seen one it created for longer than its expectation timeout is excused until removed)")
)

// Leader election (controller-runtime; docs/design.md, the leader-only-work class).
var (
	LeaderFollowerTerminated = p("leader/follower-terminated", verdict.Assumption, "a follower that contends for the Lease was terminated gracefully")
	LeaderHolderKilled       = p("leader/holder-killed", verdict.Assumption, "the Lease holder was killed")
	LeaderPartitioned        = p("leader/leader-partitioned", verdict.Assumption, "the leader was partitioned and a successor took the Lease")
	LeaderFailover           = p("leader/failover-in-time", verdict.Convergence, "after the holder is killed another replica holds the Lease within the declared lease duration (checked against the Lease's own) plus two jittered retry periods, leaseTransitions +1; in exploration, a replica renews it within that bound once every fault is recovered")
	LeaderOneWriter          = p("leader/only-holder-writes", verdict.Invariant, "every leader-only write is made by the replica holding a valid Lease at that moment")
)

// Foreground deletion (Crossplane claims; docs/design.md, the foreground-deletion class).
var (
	FgReadyBefore       = p("foreground/ready-before", verdict.Assumption, "the claim was Ready before its deletion")
	FgDeletionBlocked   = p("foreground/deletion-blocked", verdict.Assumption, "the harness's block was in place when the claim was deleted: the external system refused deletes, or the harness's finalizer was on what the claim owns")
	FgOneCreateWins     = p("foreground/one-create-wins", verdict.Assumption, "exactly one of the concurrent creates of one claim won")
	FgOldDeleting       = p("foreground/old-still-deleting", verdict.Assumption, "the successor claim was created while its predecessor was still deleting")
	FgDeletingStatus    = p("foreground/deleting-status", verdict.Convergence, "(a) within 5s of the delete the claim shows Ready=False reason=Deleting, and keeps showing it until it is gone")
	FgBlockerNamed      = p("foreground/blocker-named", verdict.Convergence, "(b) within 15s a condition message on the claim names what blocks the deletion (where the subject binds a blockerMessage)")
	FgDeletionCompletes = p("foreground/deletion-completes", verdict.Convergence, "the deletion completes within T once unblocked")
	FgSuccessorReady    = p("foreground/successor-ready", verdict.Convergence, "(c) the successor claim becomes Ready within T, its Managed owning the external resource")
	FgNoDeleteInUse     = p("foreground/no-delete-in-use", verdict.Invariant, "(c) a deleting owner never deletes an external resource after its successor created or observed it")
)

// Finalizer race (Cluster API clusterctl move; docs/design.md, the finalizer-race class).
var (
	FinRanBefore     = p("finalizer/ran-before", verdict.Assumption, "every object ran (finalizer on, unpaused) before the move")
	FinMoverFinished = p("finalizer/mover-finished", verdict.Assumption, "the mover ran to its exit: it finished, or the API server refused it the controller's finalizer (P3's evidence)")
	FinP1            = p("finalizer/P1", verdict.Convergence, "P1: every source object is gone within 30s of the mover finishing")
	FinRunsAfterMove = p("finalizer/runs-after-move", verdict.Convergence, "every moved object runs on the destination within T")
	FinP1Back        = p("finalizer/P1-back", verdict.Convergence, "P1 on the move back: every object is gone from the cluster it moved off within 30s of the mover finishing")
	FinRunsAfterBack = p("finalizer/runs-after-move-back", verdict.Convergence, "every object moved back runs on the source cluster within T")
	FinReleased      = p("finalizer/finalizer-released", verdict.Convergence, "a deleted object's cleanup runs and the controller's finalizer is released within 15s")
	FinP2            = p("finalizer/P2", verdict.Invariant, "P2: no object stays deleting, paused and finalized for more than 30s")
	FinP3            = p("finalizer/P3", verdict.Invariant, "P3: the controller never adds its finalizer to an object being deleted (the API server never refuses its writes, or the mover's, with \"no new finalizers can be added if the object is being deleted\")")
	FinP4            = p("finalizer/P4", verdict.Invariant, "P4: a paused object that gets a deletionTimestamp causes no external cleanup")
)

// ExploreStepsActed is what the harness did with a drawn schedule.
var ExploreStepsActed = p("explore/steps-acted", verdict.Assumption, "every drawn fault step that ran was injected and recovered without error, and every write it refused as a real conflict had its object written first")

// The cluster under the suites (kube-controller-manager's controllers,
// which the suites and the Kubernetes built-in subjects rely on).
var (
	CPReplicaSetScalesUp   = p("controlplane/replicaset-scales-up", verdict.Convergence, "a new ReplicaSet reports spec.replicas replicas for its current generation within 30s, and as many live pods exist, each controlled by it")
	CPReplicaSetScalesDown = p("controlplane/replicaset-scales-down", verdict.Convergence, "after a scale-down the ReplicaSet reports spec.replicas replicas for its current generation within 30s, and as many live pods are left, each controlled by it")
	CPGCHoldsOwner         = p("controlplane/gc-holds-owner", verdict.Convergence, "the garbage collector deletes a foreground-deleted owner's free dependents within 30s, the owner still there then, deleting with the foregroundDeletion finalizer, and its blocking dependent deleting")
	CPGCRemovesOwner       = p("controlplane/gc-removes-owner", verdict.Convergence, "the garbage collector removes the foreground-deleted owner within 30s of its last blocking dependent's release")
)

// The lost-events premises that a proxy fault acted: its rule matched at
// least once.
var (
	LostEventsDelayed = p("lostevents/events-delayed", verdict.Assumption, "the event delay held back at least one pod event from the subject")
	LostWatchStalled  = p("lostevents/watch-stalled", verdict.Assumption, "the watch stall held at least one pod event from the subject until the watch resumed")
)

// Steady state: any controller, judged on the objects it reconciles
// without properties written for it (kstatus readiness, its proxy log).
var (
	SteadySettles          = p("reconcile/settles", verdict.Convergence, "after the objects are applied and after each change, every object and everything it owns (by ownerReferences, transitively) is ready (kstatus Current, or the subject's readiness override; a custom resource whose Available, Synced or Healthy condition is False, or whose Degraded, Failed, Failure, Error or ReplicaFailure condition is True, is not; a suspended Job is at rest; after the last change of a faulted run, not without a status where every clean reference run ended with one, nor with fewer objects of a kind than every clean reference run ended with) within T and stays so for W")
	SteadyRecovers         = p("reconcile/recovers", verdict.Convergence, "after each fault is recovered, every object and everything it owns is ready again within T and stays so for W")
	SteadyQuiescent        = p("reconcile/quiescent", verdict.Invariant, "once settled, with nothing changing (and nothing written for W, T at most), the controller makes no writes for the quiet window (Lease and Event writes, access and token reviews, and a write that changed nothing made when a re-add of its object was due, which writes a fault refused left in the controller's work queue, aside), and then still acts: the change after the window, when it drew a write in the first clean run, draws one within T")
	SteadyRestarted        = p("reconcile/restarted-after-first-write", verdict.Assumption, "the controller was restarted (killed, then started again) after its first write of an object was answered")
	SteadyStaleView        = p("reconcile/stale-view", verdict.Assumption, "the controller's watches of the objects' resources and of what they own were stalled while another party wrote (the next change, or, with none bound, a deletion of an object it owns), and the stall held that write's event from the controller until the watches resumed")
	SteadyMissedEvents     = p("reconcile/missed-events", verdict.Assumption, "the watch events of the objects' resources and of what they own were dropped while another party wrote (the next change, or, with none bound, a deletion of an object the controller owns), that write's event among them, and then a forced relist of its resource answered the controller's re-watch with 410 Expired")
	SteadyWritesRefused    = p("reconcile/writes-refused", verdict.Assumption, "the fault proxy answered the controller's writes of objects (Lease and Event writes aside) with 429, then 500, then 409, each at least once, while another party's write (the next change, or, with none bound, a deletion of an object it owns) drew them")
	SteadyLeavesNothing    = p("reconcile/leaves-nothing-behind", verdict.Convergence, "once the objects are deleted, they, everything they own and every object the controller created while reconciling them (Leases, Events and what the subject declares shared aside) are gone within T, every finalizer released")
	SteadySameEndState     = p("reconcile/same-end-state", verdict.Convergence, "after the faults, the end state equals a fault-free reference run's of the same objects and changes: the objects' status and their other fields someone set (applied, changed or written by the controller; not those the API server allocated or defaulted), the set of objects they own (by ownerReferences, transitively) and of the objects the controller created or changed without an owner (in the run's namespace, cluster-scoped, or in another namespace named after the run's) with their spec or data, labels, annotations, finalizers and ownerReferences, objects of a kind and owner matched by name, or by kind and owner where the clean runs' names varied; a uid compared as the object that holds it (one no object holds differs); timestamps, generated names' suffixes (and prefixes, between objects of one kind and owner that hold the same), a CronJob's Jobs' scheduled minute, the namespace, a pod's node and an endpoint's (the scheduler's choice) and the addresses of the run's pods and their nodes (the network's), the fault proxy's conflict mark (a label or annotation a controller may copy while a real conflict's write is under way), the fields that differed between two clean reference runs and the subject's ignore paths masked")
	SteadyNoChurn          = p("reconcile/no-churn", verdict.Invariant, "from the first fault on, the controller deletes no object the fault-free reference run keeps (beyond what that run deleted of it), and over the run it creates no more objects of a resource than the reference run did (one more of each object of its own another party deleted while a fault acted; a CronJob's Job for each scheduled minute the run reached), counted from its proxy log")
	SteadyNoFinalizer      = p("reconcile/no-finalizer-on-deleting", verdict.Invariant, "the controller never adds a finalizer to an object being deleted: the API server never refuses one of its writes with \"no new finalizers can be added if the object is being deleted\" (finalizer/P3, for any controller)")
	SteadyActs             = p("reconcile/acts", verdict.Convergence, "in a fault-free run the controller acts on the objects: the API server answers at least one write of it of the run's objects or of what it makes for them (Lease and Event writes aside), between the objects' application and the end of the run")
	SteadyNoPanic          = p("reconcile/no-panic", verdict.Invariant, "the controller's output shows no panic: neither a Go panic that ended a process nor one its framework recovered (controller-runtime's \"Observed a panic\", client-go's \"Observed a panic\")")
	SteadyRestartedSettled = p("reconcile/restarted-once-settled", verdict.Assumption, "the controller was restarted (killed, then started again) once the objects had settled, as an upgrade restarts it, and before the next change")
	SteadyRestartedCreates = p("reconcile/restarted-after-first-creates", verdict.Assumption, "the controller was restarted (killed, then started again) right after its first answered create of each resource the fault-free reference runs saw it create: each restart within a second of the latest such first create since the restart before (or of that restart's end, when the create came while it went on), and every such resource it made followed by one; a create a restart cut off that made its object all the same is the first when it came first, followed by that restart")
)

// Properties lists every property, by suite.
var Properties = []verdict.Property{
	EvidenceComplete,
	LostHealthyBefore, LostEventWithheld, LostEventsDelayed, LostWatchStalled, LostStormHappened, LostCreateRecovered, LostLaterScale, LostLateEvents, LostAfterStall, LostAfterStorm, LostAfterFaults, LostNoOvershoot,
	LeaderFollowerTerminated, LeaderHolderKilled, LeaderPartitioned, LeaderFailover, LeaderOneWriter,
	FgReadyBefore, FgDeletionBlocked, FgOneCreateWins, FgOldDeleting, FgDeletingStatus, FgBlockerNamed, FgDeletionCompletes, FgSuccessorReady, FgNoDeleteInUse,
	FinRanBefore, FinMoverFinished, FinP1, FinRunsAfterMove, FinP1Back, FinRunsAfterBack, FinReleased, FinP2, FinP3, FinP4,
	ExploreStepsActed,
	CPReplicaSetScalesUp, CPReplicaSetScalesDown, CPGCHoldsOwner, CPGCRemovesOwner,
	SteadyRestarted, SteadyStaleView, SteadyMissedEvents, SteadyWritesRefused, SteadySettles, SteadyRecovers, SteadyQuiescent, SteadyLeavesNothing, SteadySameEndState, SteadyNoChurn, SteadyNoFinalizer,
	SteadyRestartedSettled, SteadyRestartedCreates, SteadyActs, SteadyNoPanic,
}

// Property looks a property up by id.
func Property(id string) (verdict.Property, error) {
	i := slices.IndexFunc(Properties, func(p verdict.Property) bool { return p.ID == id })
	if i < 0 {
		return verdict.Property{}, fmt.Errorf("%q is not a property of the catalog", id)
	}
	return Properties[i], nil
}
