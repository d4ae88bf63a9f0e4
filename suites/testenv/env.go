package testenv

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/e2e-framework/klient"
	"sigs.k8s.io/e2e-framework/support"

	"github.com/steadystate-dev/steadystate/cluster"
)

// StartTimeout bounds cluster start-up, including a first-time wait for the
// control plane to become ready.
const StartTimeout = 3 * time.Minute

// The provider lives only in the first parallel process, which owns the
// cluster; every process gets the clients.
var provider cluster.Provider

// Clients are the handles a spec uses to reach the cluster.
type Clients struct {
	// REST is an admin client configuration for the harness: a read the
	// API server aborts is sent again (retryReads).
	REST *rest.Config
	// Subject is the same admin configuration without that retry, for the
	// subjects' proxies: a subject meets the API server as it answers.
	Subject *rest.Config
	// Kube is a typed clientset.
	Kube kubernetes.Interface
	// Klient is e2e-framework's client, for its wait conditions.
	Klient klient.Client
	// Kubeconfig is an admin kubeconfig file, for tools run as processes.
	Kubeconfig string
}

var clients *Clients

// Get returns the clients connected by Connect.
func Get() *Clients {
	if clients == nil {
		Fail("testenv.Get called before the suite connected: wire testenv.SetupCluster and testenv.Connect into SynchronizedBeforeSuite")
	}
	return clients
}

// SetupCluster runs in the first parallel process: it brings the cluster up
// as the run's configuration says and returns the kubeconfig for every
// process.
func SetupCluster(ctx SpecContext) []byte { return SetupClusterWith(ctx, Run().Cluster) }

// SetupClusterWith is SetupCluster with a cluster configuration derived
// from the run's (a subject may need controllers left out).
func SetupClusterWith(ctx SpecContext, cfg cluster.Config) []byte {
	cfg.Progress = GinkgoWriter
	p, err := cluster.New(cfg)
	Expect(err).NotTo(HaveOccurred())
	provider = p
	startCtx, cancel := context.WithTimeout(ctx, StartTimeout)
	defer cancel()
	start := time.Now()
	kubeconfig, err := p.Create(startCtx)
	Expect(err).NotTo(HaveOccurred(), "bring up the %s cluster", Run().ProviderName())
	// On stderr as well: the figure belongs in every run's output.
	fmt.Fprintf(io.MultiWriter(GinkgoWriter, os.Stderr), "%s cluster ready in %s\n", Run().ProviderName(), time.Since(start).Round(time.Millisecond))
	data, err := os.ReadFile(kubeconfig)
	Expect(err).NotTo(HaveOccurred())
	return rewriteContext(data, p.GetKubectlContext())
}

// rewriteContext selects context in a kubeconfig, so every process uses the
// context the provider chose.
func rewriteContext(data []byte, context string) []byte {
	if context == "" {
		return data
	}
	cfg, err := clientcmd.Load(data)
	Expect(err).NotTo(HaveOccurred())
	cfg.CurrentContext = context
	out, err := clientcmd.Write(*cfg)
	Expect(err).NotTo(HaveOccurred())
	return out
}

// Connect runs in every parallel process with SetupCluster's kubeconfig.
func Connect(kubeconfig []byte) {
	restCfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	Expect(err).NotTo(HaveOccurred())
	restCfg.QPS, restCfg.Burst = 100, 200
	subject := rest.CopyConfig(restCfg)
	restCfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return retryReads{next: rt} })
	kube, err := kubernetes.NewForConfig(restCfg)
	Expect(err).NotTo(HaveOccurred())
	kl, err := klient.New(restCfg)
	Expect(err).NotTo(HaveOccurred())
	f, err := os.CreateTemp("", "steadystate-kubeconfig-")
	Expect(err).NotTo(HaveOccurred())
	_, err = f.Write(kubeconfig)
	Expect(err).NotTo(HaveOccurred())
	Expect(f.Close()).To(Succeed())
	DeferCleanup(os.Remove, f.Name())
	clients = &Clients{REST: restCfg, Subject: subject, Kube: kube, Klient: kl, Kubeconfig: f.Name()}
}

// TeardownCluster runs in the first parallel process after every other one
// has finished, also after a failure or Ctrl-C.
// When a spec failed, providers whose logs are not already in the
// artifacts (kind's nodes) export them to $ARTIFACTS/cluster-logs first.
func TeardownCluster(ctx SpecContext) {
	if provider == nil {
		return
	}
	if _, err := os.Stat(failureMarker()); err == nil && Run().Cluster.Provider == cluster.Kind {
		dest := filepath.Join(artifactsRoot(), "cluster-logs")
		if err := provider.ExportLogs(ctx, dest); err != nil {
			fmt.Fprintf(GinkgoWriter, "exporting the cluster's logs to %s: %v\n", dest, err)
		}
	}
	os.Remove(failureMarker())
	Expect(provider.Destroy(ctx)).To(Succeed())
	provider = nil
}

// NoteFailure is a ReportAfterEach body: a failing spec, in any parallel
// process, leaves a marker so TeardownCluster exports the cluster's logs.
//
//	var _ = ReportAfterEach(testenv.NoteFailure)
func NoteFailure(r SpecReport) {
	if r.Failed() {
		err := os.MkdirAll(artifactsRoot(), 0o755)
		if err == nil {
			err = os.WriteFile(failureMarker(), nil, 0o644)
		}
		if err != nil {
			fmt.Fprintf(GinkgoWriter, "mark the failure for the cluster's logs: %v\n", err)
		}
	}
}

// failureMarker is per run: every parallel process shares the seed.
func failureMarker() string {
	return filepath.Join(artifactsRoot(), fmt.Sprintf(".failed-%d", GinkgoRandomSeed()))
}

// controllerManagerRestarter is a provider that can restart the cluster's
// kube-controller-manager (local).
type controllerManagerRestarter interface {
	RestartControllerManager(ctx context.Context) error
}

// RestartControllerManager restarts kube-controller-manager where the
// provider can (local) and says whether it did; its controllers then start
// anew and discover every resource served now.
func RestartControllerManager(ctx context.Context) (bool, error) {
	r, ok := provider.(controllerManagerRestarter)
	if !ok {
		return false, nil
	}
	return true, r.RestartControllerManager(ctx)
}

// Image is an image to load into the cluster's nodes: from the harness's
// Docker engine by Name, or from Archive (a `docker save` archive holding
// Name) when set. Hint says how to make it, for the message when it fails.
type Image struct{ Name, Archive, Hint string }

// LoadImages copies images into the cluster's nodes, for providers that
// can (kind). Call it in SetupCluster's process, after the cluster is up.
func LoadImages(ctx context.Context, images ...Image) {
	loader, ok := provider.(support.E2EClusterProviderWithImageLoader)
	if !ok {
		Fail(fmt.Sprintf("the %s provider cannot load images into its nodes: run subjects in pods with PROVIDER=kind, or as local processes", Run().ProviderName()))
	}
	for _, image := range images {
		start := time.Now()
		var err error
		if image.Archive != "" {
			err = loader.LoadImageArchive(ctx, image.Archive)
		} else {
			err = loader.LoadImage(ctx, image.Name)
		}
		Expect(err).NotTo(HaveOccurred(), "load %s into the cluster (%s)", image.Name, image.Hint)
		fmt.Fprintf(GinkgoWriter, "loaded %s in %s\n", image.Name, time.Since(start).Round(time.Millisecond))
	}
}
