package subject

import (
	"context"
	"os/exec"
	"time"

	"k8s.io/client-go/rest"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/runner"
	"github.com/steadystate-dev/steadystate/fixtures"
	"github.com/steadystate-dev/steadystate/judge"
	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
	"github.com/steadystate-dev/steadystate/reference/capi"
	"github.com/steadystate-dev/steadystate/subjectfile"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// The reference controllers as subjects, in the mode SUBJECT_BUG names,
// with short expectation and lease settings so the suites stay fast.
type (
	referenceWorkload  struct{}
	referenceLeader    struct{}
	referenceCluster   struct{}
	referenceComposite struct{}
)

var (
	_ ScalableWorkload     = referenceWorkload{}
	_ LeaderElectedManager = referenceLeader{}
	_ MovableResource      = referenceCluster{}
	_ ForegroundComposite  = referenceComposite{}
)

// startRefctl runs refctl command with replicas behind proxies against
// upstream (nil: the suite's cluster), with the component's bug, for
// namespace ns: as local processes, or as pods on the suite's cluster.
func startRefctl(ctx context.Context, spec *testenv.Spec, upstream *rest.Config, ns, command string, replicas int, args ...string) chaos.Target {
	args = append([]string{"--bug=" + Bug(command)}, args...)
	if upstream == nil && Placement() == Pods {
		return startPods(ctx, spec, ns, replicas, runner.Controller{
			Name: command, Image: RefctlImage, ClusterRole: "refctl",
			Args: append([]string{command, "--kubeconfig=" + runner.Kubeconfig, "--identity=" + runner.PodName, "--health-addr=0", "--metrics-addr=0"}, args...),
		}, time.Minute)
	}
	_, target := run(spec, onSuiteCluster(runner.Options{Binary: refctl, Command: command, Replicas: replicas, Upstream: upstream, Args: args}, ns))
	return target
}

const referenceExpectationTimeout = 2 * time.Second

func (referenceWorkload) Name() string { return "workload" }

func (referenceWorkload) Workload() *Workload {
	return &Workload{file: &subjectfile.File{Name: "workload", Capabilities: subjectfile.Capabilities{ScalableWorkload: &subjectfile.ScalableWorkload{
		Resource: "workloads",
		Template: map[string]any{
			"apiVersion": refv1.GroupVersion.String(), "kind": "Workload",
			"spec": map[string]any{"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "app", "image": "steadystate.invalid/none"}}},
			}},
		},
		ReplicasPath: "spec.replicas", StatusReplicasPath: "status.replicas", ObservedGenerationPath: "status.observedGeneration",
		ExpectationTimeout: subjectfile.Duration{Duration: referenceExpectationTimeout},
	}}}}
}

func (referenceWorkload) StartWorkloadController(ctx context.Context, spec *testenv.Spec, ns string) chaos.Target {
	return startRefctl(ctx, spec, nil, ns, "workload", 1, "--leader-elect=false", "--watch-namespace="+ns, "--expectation-timeout="+referenceExpectationTimeout.String())
}

func (referenceLeader) Name() string { return "leader" }

func (referenceLeader) Election() *subjectfile.LeaderElected {
	return &subjectfile.LeaderElected{
		Lease: subjectfile.ObjectRef{Name: "refctl-leader", Namespace: "{{.Namespace}}"}, Replicas: 2,
		LeaseDuration: subjectfile.Duration{Duration: 3 * time.Second}, RetryPeriod: subjectfile.Duration{Duration: 500 * time.Millisecond},
	}
}

// referenceRenewDeadline keeps the correct leader safe: client-go's
// elector stops leader-only work up to a retry period plus two renew
// deadlines after its last renewal (a renew cycle that fails, then
// release(), with ReleaseOnCancel), so the lease duration must exceed
// that: 0.5 + 2 x 1 = 2.5 s < 3 s. With 2 s (4.5 s) exploration found the
// correct leader writing after its Lease had expired.
const referenceRenewDeadline = time.Second

func (l referenceLeader) StartManagers(ctx context.Context, spec *testenv.Spec, ns string) chaos.Target {
	e := l.Election()
	return startRefctl(ctx, spec, nil, ns, "leader", e.Replicas, "--lease-namespace="+ns, "--work-namespace="+ns, "--watch-namespace="+ns,
		"--lease-duration="+e.LeaseDuration.String(), "--renew-deadline="+referenceRenewDeadline.String(), "--retry-period="+e.RetryPeriod.String(), "--heartbeat=200ms")
}

func (referenceCluster) Name() string { return "cluster" }

// Movable binds the reference Cluster; its external cleanups are
// ConfigMaps labelled with the Cluster they are for.
func (referenceCluster) Movable() *subjectfile.MovableResource {
	return &subjectfile.MovableResource{
		Resource:  "clusters",
		Template:  map[string]any{"apiVersion": refv1.GroupVersion.String(), "kind": "Cluster", "spec": map[string]any{"endpoint": "https://cluster.invalid"}},
		Finalizer: capi.Finalizer, PausedPath: "spec.paused",
		SideEffects: &subjectfile.SideEffects{APIVersion: "v1", Resource: "configmaps", Selector: capi.LabelCleanupOf, UIDLabel: capi.LabelCleanupUID},
	}
}

// Install applies the reference CRDs.
func (referenceCluster) Install(ctx context.Context, cfg *rest.Config) error {
	return fixtures.Apply(ctx, cfg, fixtures.Reference, "reference/crds/*.yaml")
}

func (referenceCluster) StartResourceController(ctx context.Context, spec *testenv.Spec, upstream *rest.Config, ns string) chaos.Target {
	return startRefctl(ctx, spec, upstream, ns, "cluster", 1, "--leader-elect=false", "--watch-namespace="+ns)
}

// Move runs refctl move, one second between its steps so a racing
// controller has time to act, with the mover's bug.
func (referenceCluster) Move(ctx context.Context, _ *testenv.Spec, from, to, ns string) ([]byte, error) {
	return exec.CommandContext(ctx, refctl, "move", "--from-kubeconfig="+from, "--to-kubeconfig="+to,
		"--namespace="+ns, "--step-delay=1s", "--bug="+Bug("move")).CombinedOutput()
}

func (referenceComposite) Name() string { return "composite" }

// Claims binds the reference Claim. It has no Block: its external system
// refuses deletes instead, and its Ready message names the blocking
// Managed.
func (referenceComposite) Claims() *subjectfile.ForegroundComposite {
	return &subjectfile.ForegroundComposite{
		Resource:       "claims",
		Template:       map[string]any{"apiVersion": refv1.GroupVersion.String(), "kind": "Claim"},
		BlockerMessage: "Managed {{.Namespace}}/{{.Name}}",
	}
}

func (referenceComposite) StartComposite(ctx context.Context, spec *testenv.Spec, ns string) (chaos.Target, ExternalSystem) {
	url, ext := startExternal(ctx, ns)
	spec.KeepLog(judge.LogExternal, func() (any, error) { return ext.Log(context.Background()) })
	return startRefctl(ctx, spec, nil, ns, "composite", 1, "--leader-elect=false", "--watch-namespace="+ns, "--external-url="+url), referenceExternal{ext}
}
