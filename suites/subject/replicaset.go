package subject

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL reads best unqualified.
	. "github.com/onsi/gomega"    //nolint:revive // as above.

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/internal/proc"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// ReplicaSetController is the name of Kubernetes' own controller as a
// subject (SUBJECT=replicaset).
const ReplicaSetController = "replicaset-controller"

// WithoutReplicaSetController is a SynchronizedBeforeSuite first function:
// it brings the cluster up with every default controller except the
// ReplicaSet controller, which the suite then runs as its subject.
func WithoutReplicaSetController(ctx SpecContext) []byte {
	var rest []string
	for _, c := range local.DefaultControllers {
		if c != ReplicaSetController {
			rest = append(rest, c)
		}
	}
	Expect(os.Setenv("KCM_CONTROLLERS", strings.Join(rest, ","))).To(Succeed())
	return testenv.SetupCluster(ctx)
}

// Kind is the SUBJECT of the run: "" for the suite's reference controller,
// or "replicaset".
func Kind() string { return os.Getenv("SUBJECT") }

// StartReplicaSetController runs kube-controller-manager with only the
// ReplicaSet controller, as a local process behind a fault proxy, stopped
// when the spec ends.
func StartReplicaSetController(ctx context.Context) (*proxy.Proxy, chaos.Target) {
	bins, err := local.FindBinaries(os.Getenv("KUBE_BIN_DIR"), os.Getenv("KUBE_VERSION"))
	Expect(err).NotTo(HaveOccurred())
	env := testenv.Get()
	p, err := proxy.Start(proxy.Options{Upstream: env.REST, Replica: "kcm-replicaset"})
	Expect(err).NotTo(HaveOccurred())
	dir := GinkgoT().TempDir()
	kubeconfig := filepath.Join(dir, "kcm.kubeconfig")
	Expect(p.WriteKubeconfig(kubeconfig)).To(Succeed())
	kcm, err := proc.Start(proc.Spec{
		Name: "kcm-replicaset", Path: bins.ControllerManager, LogPath: filepath.Join(dir, "kcm-replicaset.log"),
		Args: []string{"--kubeconfig=" + kubeconfig, "--controllers=" + ReplicaSetController, "--leader-elect=false", "--secure-port=0", "--v=2"},
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		kcm.Stop(10 * time.Second)
		p.Close()
		if CurrentSpecReport().Failed() {
			AddReportEntry("kcm-replicaset log", ReportEntryVisibilityFailureOrVerbose, proc.Tail(kcm.LogPath(), 40))
		}
	})
	keep("kcm-replicaset", kcm.LogPath(), p)
	// An open watch is recorded at its start, before it has a status code.
	Eventually(func() bool {
		return slices.ContainsFunc(p.Requests(), func(r proxy.Request) bool { return r.Resource == "pods" && r.Verb == "watch" })
	}).
		WithContext(ctx).WithTimeout(30*time.Second).Should(BeTrue(), "the ReplicaSet controller should watch pods through the proxy")
	return p, chaos.Target{Kube: env.Kube, Replicas: []chaos.Replica{{Identity: "kcm-replicaset", Proxy: p, Process: kcm}}}
}
