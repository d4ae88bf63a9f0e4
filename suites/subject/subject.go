package subject

import (
	"context"
	"os"
	"path/filepath"
	"runtime"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/runner"
	"github.com/steadystate-dev/steadystate/fixtures"
	"github.com/steadystate-dev/steadystate/internal/proc"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

var refctl string

// Connect is the all-processes half of a suite's SynchronizedBeforeSuite:
// it connects to the cluster, applies the reference CRDs and builds refctl
// (or uses the run's prebuilt one),
// or applies a subject file's manifests.
func Connect(ctx SpecContext, kubeconfig []byte) {
	testenv.Connect(kubeconfig)
	if f, ok := Selected().(*fileSubject); ok {
		f.applyManifests(ctx)
		return
	}
	Expect(fixtures.Apply(ctx, testenv.Get().REST, fixtures.Reference, "reference/crds/*.yaml")).To(Succeed())
	if Placement() == Pods {
		Expect(fixtures.Apply(ctx, testenv.Get().REST, fixtures.Reference, "reference/rbac/*.yaml")).To(Succeed())
	}
	if refctl = testenv.Run().Refctl; refctl != "" {
		return
	}
	_, file, _, _ := runtime.Caller(0)
	dir, err := os.MkdirTemp("", "steadystate-refctl-")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(os.RemoveAll, dir)
	refctl, err = runner.Build(filepath.Join(filepath.Dir(file), "..", ".."), dir)
	Expect(err).NotTo(HaveOccurred())
}

// Bug is the run's SUBJECT_BUG when it belongs to component (a refctl
// command), else "": a bug of the mover leaves the controller correct and
// the other way round.
func Bug(component string) string {
	if b, ok := catalog.Lookup(testenv.Run().Bug); ok && b.Component == component {
		return b.Name
	}
	return ""
}

// onSuiteCluster points o at the suite's cluster when it names no other
// (Upstream nil) and, on a cluster the run's processes share, confines
// its replicas to namespace ns: each sees its own namespace only.
func onSuiteCluster(o runner.Options, ns string) runner.Options {
	if o.Upstream != nil {
		return o
	}
	o.Upstream = testenv.Get().Subject
	if testenv.Run().Cluster.Share.Dir != "" {
		o.Confine = ns
	}
	return o
}

// run starts replicas with the runner, stopped when the spec ends; a failing
// spec gets the replicas' log tails in its report and their logs and
// proxy logs in its artifacts.
func run(spec *testenv.Spec, o runner.Options) (*runner.Subject, chaos.Target) {
	o.Dir, o.SpoolDir = GinkgoT().TempDir(), spec.SpoolDir()
	s, err := runner.Start(o)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		s.Stop()
		if CurrentSpecReport().Failed() {
			for i, r := range s.Replicas {
				AddReportEntry(r.Identity+" log", ReportEntryVisibilityFailureOrVerbose, proc.Tail(s.Proc(i).LogPath(), 40))
			}
		}
	})
	for i, r := range s.Replicas {
		spec.KeepProxy(r.Identity, func() ([]byte, error) { return r.Host.Log(context.Background()) }, s.Proxy(i))
	}
	return s, chaos.Target{Kube: testenv.Get().Kube, Replicas: s.Replicas}
}
