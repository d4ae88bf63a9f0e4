package schedule

import (
	"maps"
	"regexp"
	"slices"

	"github.com/steadystate-dev/steadystate/internal/renamed"
)

// Param is a step field a fault or workload step uses.
type Param string

// The step fields beyond the kind and the timing.
const (
	Resource Param = "resource" // the resource whose requests or watch it hits: pods, leases, ...
	Event    Param = "event"    // a watch event type: ADDED, MODIFIED, DELETED
	Replica  Param = "replica"  // which replica: an index, or leader or follower
	For      Param = "for"      // how long it stays injected
	Delay    Param = "delay"    // how late delayed events arrive
	Nth      Param = "nth"      // which of the subject's writes it refuses: 1, the next (the default), 2, the one after, ...
)

// Kind is one fault or workload step of the vocabulary.
type Kind struct {
	// Params are the fields the step takes; others are refused.
	Params []Param
	// Capabilities are the subject capabilities it applies to; none:
	// every capability.
	Capabilities []string
}

// The capabilities of a subject file (catalog.Suites' Capability).
const (
	Scalable  = "scalableWorkload"
	Leader    = "leaderElected"
	Composite = "foregroundComposite"
	Movable   = "movableResource"
	Steady    = renamed.ReconcileCapability
)

// Capabilities are every capability a schedule may name.
var Capabilities = []string{Scalable, Leader, Composite, Movable, Steady}

// Explorable are the capabilities exploration can drive: those the
// exploration suite has a driver for, today every one a schedule may
// name (a capability it cannot drive is listed apart, here).
var Explorable = Capabilities

// Faults are the faults a schedule can inject, by name: the fault proxy's
// rules on a replica's requests and watches, and the faults that act on
// pods, processes, the Lease, the API and etcd.
var Faults = map[string]Kind{
	"watch-stall":         {Params: []Param{Resource, Replica, For}},
	"watch-cut":           {Params: []Param{Resource, Replica}},
	"watch-reset":         {Params: []Param{Resource, Replica}},
	"forced-relist":       {Params: []Param{Resource, Replica}},
	"event-drop":          {Params: []Param{Resource, Event, Replica, For}},
	"event-delay":         {Params: []Param{Resource, Event, Replica, Delay, For}},
	"partition-refuse":    {Params: []Param{Replica, For}},
	"partition-blackhole": {Params: []Param{Replica, For}},
	"answer-429":          {Params: []Param{Resource, Replica, For}},
	"answer-500":          {Params: []Param{Resource, Replica, For}},
	"answer-409":          {Params: []Param{Resource, Replica, For}},
	"refuse-once-409":     {Params: []Param{Resource, Replica, For, Nth}},
	"refuse-once-500":     {Params: []Param{Resource, Replica, For, Nth}},
	"pod-deletion":        {Capabilities: []string{Scalable, Steady}},
	"process-kill":        {Params: []Param{Replica}},
	"process-terminate":   {Params: []Param{Replica}},
	"process-restart":     {Params: []Param{Replica}},
	"leader-failover":     {Capabilities: []string{Leader}},
	"concurrent-create":   {Capabilities: []string{Composite}},
	"etcd-compaction":     {},
}

// Aimed are the faults only the pattern aimed at them draws
// (RefusedOnce): the subject's next write (create, update, patch, delete
// or deletecollection) of the resource within For answered 409 or 500,
// that one alone; with Nth, its nth write from the step's start instead
// (the writes before it pass).
// A schedule file may name them with any pattern.
var Aimed = []string{"refuse-once-409", "refuse-once-500"}

// Workloads are the workload steps each capability offers: scaling a
// scalable workload; for a composite, deleting its claim, or replacing it
// with a successor for the same external resource while it deletes; for
// a movable resource, moving its objects to another cluster, or deleting
// one while another party's finalizer holds it; for any controller
// (reconciledObjects), applying the binding's next change, once the state has
// settled as the fault-free reference runs applied it.
var Workloads = map[string]Kind{
	"scale-up":     {Capabilities: []string{Scalable}},
	"scale-down":   {Capabilities: []string{Scalable}},
	"create-claim": {Capabilities: []string{Composite}},
	"delete-claim": {Capabilities: []string{Composite}},
	"move":         {Capabilities: []string{Movable}},
	"delete-held":  {Capabilities: []string{Movable}},
	"change":       {Capabilities: []string{Steady}},
}

// Resources are the roles each capability's subject reads and writes, for
// the resource of proxy faults and of triggers (a reconciledObjects schedule may
// also name any resource by its name: Uses). "workload", "claims" and the
// like are roles: a run maps each to the resource the subject binds (a
// scalable subject's workload resource is replicasets, workloads or
// clonesets); a reconciledObjects subject's objects are the binding's objects'
// resource, and owned the resource of what they own directly, as the
// fault-free reference run made it (a Deployment's replicasets).
var Resources = map[string][]string{
	Scalable:  {"pods", "workload"},
	Leader:    {"leases"},
	Composite: {"claims", "composites"},
	Movable:   {"clusters", "machines"},
	Steady:    {"objects", "owned"},
}

// Requests are the requests a subject of each capability makes on its
// own, the triggers Generate places steps after (a schedule file may name
// any verb and resource; one the subject never makes leaves its step
// undone). A scalable subject updates its workload's status, it does not
// patch it; a Lease is created once, at the first election, then updated.
var Requests = map[string][]Trigger{
	Scalable:  {{Verb: "create", Resource: "pods"}, {Verb: "delete", Resource: "pods"}, {Verb: "update", Resource: "workload"}},
	Leader:    {{Verb: "update", Resource: "leases"}},
	Composite: {{Verb: "create", Resource: "composites"}, {Verb: "delete", Resource: "composites"}, {Verb: "update", Resource: "claims"}},
	Movable:   {{Verb: "update", Resource: "clusters"}, {Verb: "patch", Resource: "clusters"}, {Verb: "create", Resource: "machines"}, {Verb: "delete", Resource: "machines"}},
	Steady:    {{Verb: "create", Resource: "owned"}, {Verb: "update", Resource: "owned"}, {Verb: "delete", Resource: "owned"}, {Verb: "update", Resource: "objects"}},
}

// resourceName is a resource as the API's paths spell it: lowercase,
// plural, with no group, a DNS label as a custom resource's plural may be
// (secrets, certificaterequests, network-attachment-definitions).
var resourceName = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

// Uses says whether a schedule of capability may name resource: one of
// its roles, or, for any controller (reconciledObjects), whose controller reads
// and writes resources no role names (an operator's Secrets, its other
// custom resources), any resource by its name. A resource the subject
// never requests leaves a trigger on it undone and a proxy fault on it
// without effect; a schedule written by hand names it on purpose.
func Uses(capability, resource string) bool {
	if slices.Contains(Resources[capability], resource) {
		return true
	}
	return capability == Steady && resourceName.MatchString(resource)
}

// resourcesValid says what Uses accepts, for a problem's valid list.
func resourcesValid(capability string) []string {
	out := slices.Clone(Resources[capability])
	if capability == Steady {
		out = append(out, "a resource by its name (secrets)")
	}
	return out
}

// Events are the watch event types a step may name.
var Events = []string{"ADDED", "MODIFIED", "DELETED"}

// Verbs are the requests a trigger may wait for.
var Verbs = []string{"create", "update", "patch", "delete"}

// For says whether kind applies to a subject with capability.
func (k Kind) For(capability string) bool {
	return len(k.Capabilities) == 0 || slices.Contains(k.Capabilities, capability)
}

// Takes says whether the kind uses param.
func (k Kind) Takes(p Param) bool { return slices.Contains(k.Params, p) }

// names are the keys of kinds that apply to capability, sorted.
func names(kinds map[string]Kind, capability string) []string {
	var out []string
	for _, n := range slices.Sorted(maps.Keys(kinds)) {
		if kinds[n].For(capability) {
			out = append(out, n)
		}
	}
	return out
}
