package subject

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/chaos/runner"
	"github.com/steadystate-dev/steadystate/cluster"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// Where replicas run: as local processes, or as a Deployment on the
// cluster, each pod carrying the fault proxy as a sidecar. The run's
// configuration chooses (SUBJECT_PLACEMENT; pods on kind, processes
// elsewhere).
const (
	Processes = testenv.Processes
	Pods      = testenv.Pods
)

// The images of a subject in pods, loaded into the cluster by the provider
// (make e2e PROVIDER=kind builds them).
var (
	RefctlImage     = "steadystate/refctl:dev"
	FaultProxyImage = "steadystate/faultproxy:dev"
)

// PodLabel marks the pods of a subject that runs in pods, so suites can tell
// them from the pods the subject manages ("!"+PodLabel selects the others).
const PodLabel = runner.PodLabel

// Placement is where this run's replicas run.
func Placement() string { return testenv.Run().Placement }

// pullPolicy is Never where the provider loads the images (kind), and
// IfNotPresent on an existing cluster, whose nodes have them or pull them.
func pullPolicy() corev1.PullPolicy {
	if testenv.Run().Cluster.Provider == cluster.Existing {
		return corev1.PullIfNotPresent
	}
	return corev1.PullNever
}

// startPods runs c as pods (runner.StartPods) in namespace ns until the
// spec ends. Each replica's proxy and log are the spec's evidence, and so
// is the proxy of every pod the Deployment starts in place of one a fault
// deleted.
func startPods(ctx context.Context, spec *testenv.Spec, ns string, replicas int, c runner.Controller, startTimeout time.Duration) chaos.Target {
	env, collector := testenv.Get(), spec.Evidence()
	p, err := runner.StartPods(ctx, runner.PodOptions{
		Kube: env.Kube, REST: env.REST, Namespace: ns, Replicas: replicas,
		Controller: c, ProxyImage: FaultProxyImage, StartTimeout: startTimeout, Pull: pullPolicy(),
		Replacement: func(pod string, m *proxy.Mirror) { collector.AddProxy(pod, m) },
	})
	if err != nil {
		Fail(err.Error())
	}
	DeferCleanup(p.Stop)
	for _, r := range p.Replicas {
		spec.KeepProxy(r.Identity, func() ([]byte, error) { return r.Host.Log(context.Background()) }, r.Proxy)
	}
	return chaos.Target{Kube: env.Kube, Replicas: p.Replicas}
}
