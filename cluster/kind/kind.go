package kind

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/e2e-framework/klient"
	"sigs.k8s.io/e2e-framework/support"
	kindcluster "sigs.k8s.io/kind/pkg/cluster"
	"sigs.k8s.io/kind/pkg/cluster/nodeutils"
	kindcmd "sigs.k8s.io/kind/pkg/cmd"

	"github.com/steadystate-dev/steadystate/internal/config"
)

// Options say which cluster to make.
type Options struct {
	// Name of the cluster; default "steadystate".
	Name string
	// Image is the node image; default DefaultImage(KubeVersion).
	Image string
	// KubeVersion picks the default image; default v1.36.3.
	KubeVersion string
	// ConfigFile is kind's cluster config (kind-config.yaml).
	ConfigFile string
	// Keep leaves the cluster running after Destroy (KIND_KEEP=1).
	Keep bool
	// WaitReady bounds the wait for the node to be Ready; default 3m.
	WaitReady time.Duration
	// Progress receives one line per step; default discarded.
	Progress io.Writer
}

// DefaultImage is the offline node image `make kind-image` builds.
func DefaultImage(kubeVersion string) string {
	if kubeVersion == "" {
		kubeVersion = config.DefaultKubeVersion
	}
	return "steadystate/kind-node:" + kubeVersion
}

func (o *Options) setDefaults() {
	if o.Name == "" {
		o.Name = "steadystate"
	}
	if o.Image == "" {
		o.Image = DefaultImage(o.KubeVersion)
	}
	if o.WaitReady == 0 {
		o.WaitReady = 3 * time.Minute
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
}

// Provider makes and deletes one kind cluster.
type Provider struct {
	o          Options
	kind       *kindcluster.Provider
	kubeconfig string
	attempted  bool // Create ran far enough that Destroy must delete by name
	rest       *rest.Config
}

var _ support.E2EClusterProviderWithImageLoader = (*Provider)(nil)

// NewProvider returns a provider for o.
func NewProvider(o Options) *Provider {
	o.setDefaults()
	return &Provider{o: o}
}

// Create checks the inputs, creates the cluster and waits for its node.
func (p *Provider) Create(ctx context.Context, _ ...string) (string, error) {
	if err := CheckConfig(p.o.ConfigFile); err != nil {
		return "", err
	}
	if err := dockerAnswers(ctx); err != nil {
		return "", err
	}
	if err := imageExists(ctx, p.o.Image); err != nil {
		return "", err
	}
	p.kind = kindcluster.NewProvider(kindcluster.ProviderWithDocker(), kindcluster.ProviderWithLogger(kindcmd.NewLogger()))
	names, err := p.kind.List()
	if err != nil {
		return "", fmt.Errorf("list kind clusters: %w", err)
	}
	if slices.Contains(names, p.o.Name) {
		return "", fmt.Errorf("a kind cluster named %q already exists and is not ours to touch: delete it (kind delete cluster --name %s) or pick another name with KIND_CLUSTER_NAME", p.o.Name, p.o.Name)
	}
	dir, err := os.MkdirTemp("", "steadystate-kind-"+p.o.Name+"-")
	if err != nil {
		return "", err
	}
	p.kubeconfig = filepath.Join(dir, "kubeconfig")
	fmt.Fprintf(p.o.Progress, "kind: creating cluster %s with %s (waiting up to %s for the node)\n", p.o.Name, p.o.Image, p.o.WaitReady)
	start := time.Now()
	p.attempted = true
	created := make(chan error, 1)
	go func() {
		created <- p.kind.Create(p.o.Name,
			kindcluster.CreateWithConfigFile(p.o.ConfigFile),
			kindcluster.CreateWithNodeImage(p.o.Image),
			kindcluster.CreateWithWaitForReady(p.o.WaitReady),
			kindcluster.CreateWithKubeconfigPath(p.kubeconfig),
			kindcluster.CreateWithDisplayUsage(false),
			kindcluster.CreateWithDisplaySalutation(false),
		)
	}()
	select {
	case err = <-created:
	case <-ctx.Done():
		// kind's create cannot be cancelled: let it finish, then delete
		// what it made, so an interrupt leaves no cluster behind.
		fmt.Fprintf(p.o.Progress, "kind: interrupted; deleting cluster %s once its create returns\n", p.o.Name)
		cerr := <-created
		return "", errors.Join(fmt.Errorf("create kind cluster %s: %w", p.o.Name, ctx.Err()), cerr, p.Destroy(context.WithoutCancel(ctx)))
	}
	if err != nil {
		// kind removes the nodes of a failed create itself; make sure.
		return "", errors.Join(fmt.Errorf("create kind cluster %s: %w", p.o.Name, err), p.Destroy(ctx))
	}
	fmt.Fprintf(p.o.Progress, "kind: cluster %s created in %s\n", p.o.Name, time.Since(start).Round(100*time.Millisecond))
	if p.rest, err = clientcmd.BuildConfigFromFlags("", p.kubeconfig); err != nil {
		return "", err
	}
	return p.kubeconfig, nil
}

// CreateWithConfig creates the cluster from another kind config file.
func (p *Provider) CreateWithConfig(ctx context.Context, configFile string) (string, error) {
	p.o.ConfigFile = configFile
	return p.Create(ctx)
}

// Destroy deletes the cluster and its kubeconfig, unless Keep.
func (p *Provider) Destroy(ctx context.Context) error {
	if !p.attempted {
		return nil
	}
	if p.o.Keep {
		fmt.Fprintf(p.o.Progress, "kind: keeping cluster %s (KIND_KEEP); delete it with: kind delete cluster --name %s\n", p.o.Name, p.o.Name)
		return nil
	}
	start := time.Now()
	err := retryDelete(ctx, func() error {
		err := p.kind.Delete(p.o.Name, p.kubeconfig)
		if err != nil {
			p.thawNodes(ctx)
		}
		return err
	}, p.o.Progress, p.o.Name, 5*time.Second, 90*time.Second)
	os.RemoveAll(filepath.Dir(p.kubeconfig))
	p.attempted = false
	if err != nil {
		return fmt.Errorf("delete kind cluster %s: %w", p.o.Name, err)
	}
	fmt.Fprintf(p.o.Progress, "kind: cluster %s deleted in %s\n", p.o.Name, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// thawNodes thaws frozen freezer cgroups under the cluster's node
// containers (see thawFrozen), so a retried delete can finish.
func (p *Provider) thawNodes(ctx context.Context) {
	nodes, err := p.kind.ListNodes(p.o.Name)
	if err != nil {
		return
	}
	for _, n := range nodes {
		id, err := exec.CommandContext(ctx, "docker", "inspect", "--format", "{{.Id}}", n.String()).Output()
		if err != nil {
			continue
		}
		if thawed, err := thawFrozen(filepath.Join(freezerRoot, strings.TrimSpace(string(id)))); thawed > 0 || err != nil {
			fmt.Fprintf(p.o.Progress, "kind: thawed %d frozen cgroup(s) in node %s so it can exit (%v)\n", thawed, n.String(), err)
		}
	}
}

// ExportLogs writes kind's node logs (kubelet, containerd, pods) to dest.
func (p *Provider) ExportLogs(_ context.Context, dest string) error {
	if p.kind == nil {
		return errors.New("no kind cluster was created")
	}
	return p.kind.CollectLogs(p.o.Name, dest)
}

// LoadImage copies an image from the Docker engine into every node.
func (p *Provider) LoadImage(ctx context.Context, image string, _ ...string) error {
	dir, err := os.MkdirTemp("", "steadystate-kind-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	archive := filepath.Join(dir, "image.tar")
	if out, err := exec.CommandContext(ctx, "docker", "save", "-o", archive, image).CombinedOutput(); err != nil {
		return fmt.Errorf("docker save %s: %v: %s", image, err, strings.TrimSpace(string(out)))
	}
	return p.LoadImageArchive(ctx, archive)
}

// LoadImageArchive imports a docker-save archive into every node.
func (p *Provider) LoadImageArchive(_ context.Context, archive string, _ ...string) error {
	nodes, err := p.kind.ListInternalNodes(p.o.Name)
	if err != nil {
		return err
	}
	for _, n := range nodes {
		f, err := os.Open(archive)
		if err != nil {
			return err
		}
		err = nodeutils.LoadImageArchive(n, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("load %s into node %s: %w", archive, n.String(), err)
		}
	}
	return nil
}

// WaitForControlPlane checks that the API server answers /readyz.
func (p *Provider) WaitForControlPlane(ctx context.Context, _ klient.Client) error {
	if p.rest == nil {
		return errors.New("call Create first")
	}
	cs, err := kubernetes.NewForConfig(p.rest)
	if err != nil {
		return err
	}
	return cs.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error()
}

// The rest of support.E2EClusterProvider, as e2e-framework documents it.

// WithName sets the cluster's name.
func (p *Provider) WithName(name string) support.E2EClusterProvider { p.o.Name = name; return p }

// WithVersion sets the Kubernetes version.
func (p *Provider) WithVersion(v string) support.E2EClusterProvider { p.o.KubeVersion = v; return p }

// WithPath is a no-op: kind is a library here, not a binary on a path.
func (p *Provider) WithPath(string) support.E2EClusterProvider { return p }

// SetDefaults fills in the options not set.
func (p *Provider) SetDefaults() support.E2EClusterProvider { p.o.setDefaults(); return p }

// GetKubeconfig is the path of the cluster's kubeconfig.
func (p *Provider) GetKubeconfig() string { return p.kubeconfig }

// GenerateKubeconfig returns the kubeconfig Create wrote.
func (p *Provider) GenerateKubeconfig(...string) (string, error) { return p.kubeconfig, nil }

// GetKubectlContext is the kubeconfig context kind names.
func (p *Provider) GetKubectlContext() string { return "kind-" + p.o.Name }

// KubernetesRestConfig is the cluster's client configuration.
func (p *Provider) KubernetesRestConfig() *rest.Config { return p.rest }

// WithOpts applies e2e-framework cluster options.
func (p *Provider) WithOpts(opts ...support.ClusterOpts) support.E2EClusterProvider {
	for _, o := range opts {
		o(p)
	}
	return p
}
