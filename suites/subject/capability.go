package subject

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"k8s.io/client-go/rest"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/subjectfile"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// Subject is a controller under test. Every Start method gets the spec
// (its replicas' proxies and logs join the spec's evidence) and the
// spec's namespace: a subject that limits itself to it lets specs run in
// parallel (ginkgo -p), each with its own replicas and faults.
type Subject interface {
	Name() string
}

// ScalableWorkload is a controller that keeps a number of pods running for
// a resource (Workload, ReplicaSet, CloneSet).
type ScalableWorkload interface {
	Subject
	// Workload is the binding, nil when the subject has none.
	Workload() *Workload
	// StartWorkloadController runs one replica for the current spec,
	// which works in namespace ns.
	StartWorkloadController(ctx context.Context, spec *testenv.Spec, ns string) chaos.Target
}

// LeaderElectedManager is a controller whose replicas elect a leader with
// a Lease and do leader-only work.
type LeaderElectedManager interface {
	Subject
	// Election is the binding, nil when the subject has none; the Lease
	// fields are templates of the spec's namespace (see Lease).
	Election() *subjectfile.LeaderElected
	// StartManagers runs Election().Replicas replicas electing in ns.
	StartManagers(ctx context.Context, spec *testenv.Spec, ns string) chaos.Target
}

// MovableResource is a controller of a finalized, pausable resource and
// the tool that moves that resource between clusters.
type MovableResource interface {
	Subject
	// Movable is the binding, nil when the subject has none.
	Movable() *subjectfile.MovableResource
	// Install makes the resource known to another cluster (the move's
	// target): its CRDs and what else the controller needs there.
	Install(ctx context.Context, cfg *rest.Config) error
	// StartResourceController runs one replica against upstream (nil:
	// the suite's cluster) for namespace ns.
	StartResourceController(ctx context.Context, spec *testenv.Spec, upstream *rest.Config, ns string) chaos.Target
	// Move moves every object of namespace from one cluster to the other;
	// what the mover did is kept with spec's evidence.
	Move(ctx context.Context, spec *testenv.Spec, fromKubeconfig, toKubeconfig, namespace string) ([]byte, error)
}

// ForegroundComposite is a controller of claims whose deletion waits, in
// the foreground, for what the controller composed for them.
type ForegroundComposite interface {
	Subject
	// Claims is the binding, nil when the subject has none. A binding
	// with no Block.Resource is backed by an external system the harness
	// runs, which holds up a deletion by refusing external deletes.
	Claims() *subjectfile.ForegroundComposite
	// StartComposite runs one replica for namespace ns, and the external
	// system its claims are backed by when the harness runs one (nil when
	// the binding's Block holds up deletions instead).
	StartComposite(ctx context.Context, spec *testenv.Spec, ns string) (chaos.Target, ExternalSystem)
}

// ExternalSystem is the system outside the cluster a composite's claims
// are backed by, run by the harness for the spec: it holds up a claim's
// deletion from outside the subject by refusing or slowing external
// deletes, and says which managed object owns an external resource. Its
// operations are kept with the spec's evidence.
type ExternalSystem interface {
	// FailDeletes makes external deletes fail (on) or succeed again.
	FailDeletes(ctx context.Context, on bool) error
	// SlowDeletes makes each external delete take d.
	SlowDeletes(ctx context.Context, d time.Duration) error
	// Owner is the UID of the managed object that owns the external
	// resource externalName.
	Owner(ctx context.Context, externalName string) (string, error)
	// Managed is the resource of the managed objects, one per claim,
	// named as its claim and owning its external resource.
	Managed() schema.GroupVersionResource
	// ExternalNamePath is the claim's field (dotted) that names its
	// external resource.
	ExternalNamePath() string
}

// Scalable is the selected subject as a scalable workload, or skips the
// spec when it is not one.
func Scalable() ScalableWorkload {
	return capability(ScalableWorkload(referenceWorkload{}), "scalable workload", ScalableBinding,
		func(w ScalableWorkload) bool { return w.Workload() != nil })
}

// ScalableBinding is where a subject file binds a scalable workload.
const ScalableBinding = "capabilities.scalableWorkload"

// LeaderElected is the selected subject as a leader-elected manager, or
// skips the spec when it is not one.
func LeaderElected() LeaderElectedManager {
	return capability(LeaderElectedManager(referenceLeader{}), "leader-elected manager", "capabilities.leaderElected",
		func(l LeaderElectedManager) bool { return l.Election() != nil })
}

// Movable is the selected subject as a movable resource, or skips the spec
// when it is not one.
func Movable() MovableResource {
	return capability(MovableResource(referenceCluster{}), "movable, finalized resource", "capabilities.movableResource",
		func(m MovableResource) bool { return m.Movable() != nil })
}

// Composite is the selected subject as a foreground-deleted composite, or
// skips the spec when it is not one.
func Composite() ForegroundComposite {
	return capability(ForegroundComposite(referenceComposite{}), "foreground-deleted composite", "capabilities.foregroundComposite",
		func(c ForegroundComposite) bool { return c.Claims() != nil })
}

// capability is the selected subject as a T (reference when none is
// selected); a subject that is no T, or whose binding is missing (bound
// says), skips the spec saying where the binding would go, and a binding
// an earlier spec proved does not resolve skips it saying why.
func capability[T Subject](reference T, what, binding string, bound func(T) bool) T {
	if why := unresolvedWhy(binding); why != "" {
		Skip(NotRun + why)
	}
	s := Selected()
	if s == nil {
		nameSubject(reference)
		return reference
	}
	if c, ok := s.(T); ok && (bound == nil || bound(c)) {
		nameSubject(s)
		return c
	}
	how := "only the reference controller has it"
	if binding != "" {
		how = "a subject file binds it under " + binding
	}
	Skip(fmt.Sprintf("%ssubject %s is not a %s (%s)", verdict.CapabilityNotBound, s.Name(), what, how))
	var zero T
	return zero
}

// nameSubject names the spec's subject and its mode in its report
// (verdict.SubjectEntry), for the report page's title: a reference
// subject's seeded bug or "correct", or "subject file".
func nameSubject(s Subject) {
	mode := "correct"
	if b, ok := catalog.Lookup(testenv.Run().Bug); ok && b.Subject == s.Name() {
		mode = b.Name
	}
	if _, ok := s.(*fileSubject); ok {
		mode = "subject file"
	}
	AddReportEntry(verdict.SubjectEntry, ReportEntryVisibilityNever, s.Name()+" ("+mode+")")
}

// Lease is the namespace and name of the Lease an election in the spec's
// namespace ns uses.
func Lease(e *subjectfile.LeaderElected, ns string) (namespace, name string, err error) {
	v := subjectfile.Vars{Namespace: ns}
	if namespace, err = subjectfile.Expand(e.Lease.Namespace, v); err != nil {
		return "", "", err
	}
	name, err = subjectfile.Expand(e.Lease.Name, v)
	return namespace, name, err
}
