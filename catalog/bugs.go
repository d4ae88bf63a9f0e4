package catalog

import (
	"fmt"
	"slices"
	"strings"
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
	{Name: "status-hot-loop", Component: "composite", Subject: "composite", Suite: "steadystate",
		Breaks: []string{SteadyQuiescent.ID},
		Origin: "synthetic: a status hot loop: a controller that stamps status with the time of every reconcile (a condition's lastTransitionTime as a heartbeat) and writes it whether or not anything changed, so its own write and each resync bring another"},
	{Name: "recreate-children-on-restart", Component: "composite", Subject: "composite", Suite: "steadystate",
		// Its children are made again with the same names, specs and
		// status, so the end state is the reference's: only the writes
		// show it.
		Breaks: []string{SteadyNoChurn.ID},
		Origin: "synthetic: a controller that knows its children only from memory: after a restart it deletes the children it finds and makes them again instead of adopting them"},
	{Name: "release-finalizer-early", Component: "composite", Subject: "composite", Suite: "steadystate",
		Breaks: []string{SteadyLeavesNothing.ID},
		Origin: "synthetic: a finalizer released before the cleanup it guards: the claim goes at once, and the Composite it made (no ownerReference) is left behind with its Managed"},
	{Name: "delete-orphans-from-cache", Component: "composite", Subject: "composite", Suite: "steadystate",
		// The Composite deleted is made again, with the same name, spec
		// and status, and the Claim (read fresh, its status written as
		// it goes) ends Ready as in the reference: only the creates show
		// it (a stale view, and missed events until the relist).
		Breaks: []string{SteadyNoChurn.ID},
		Origin: "synthetic: a stale cache's orphan cleanup (Sieve's staleness class): a child whose parent its informer cache does not list is deleted as an orphan without a fresh read, while the cache is behind the parent's change the child already carries"},
	{Name: "skip-changes-on-relist", Component: "composite", Subject: "composite", Suite: "steadystate",
		// The Claim's status.observedGeneration stays behind its
		// generation: kstatus has it in progress for good (it does not
		// recover), and the end state differs from the reference's.
		Breaks: []string{SteadyRecovers.ID, SteadySameEndState.ID},
		Origin: "synthetic: an edge-triggered controller with a watch loop of its own that takes a relist as the state it already handled: a spec change whose watch event was lost before a 410 relist is never acted on"},
}

// Suites are the suites, in order: the reference subject each runs in the
// self-test, and the capability (a subject file's key under capabilities)
// a subject must have for the suite to run it.
var Suites = []Suite{
	{"lostevents", "workload", "scalableWorkload"}, {"leader", "leader", "leaderElected"},
	{"foreground", "composite", "foregroundComposite"}, {"finalizer", "cluster", "movableResource"},
	{"steadystate", "composite", "steadyState"},
}

// Suite is a suite of the catalog: its name, the reference subject it runs
// in the self-test, and the capability a subject needs for it.
type Suite struct{ Name, Subject, Capability string }

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
