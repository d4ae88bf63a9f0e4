package local

import (
	"context"
	"errors"
	"fmt"
	"os"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/e2e-framework/klient"
	"sigs.k8s.io/e2e-framework/support"
)

// Provider adapts a local cluster to e2e-framework's E2EClusterProvider, so
// envfuncs and Ginkgo setup nodes can drive it like kind or kwok.
type Provider struct {
	opts    Options
	cluster *Cluster
}

var _ support.E2EClusterProvider = (*Provider)(nil)

// NewProvider returns a provider for a local cluster with opts.
func NewProvider(opts Options) *Provider { return &Provider{opts: opts} }

// Cluster is the running cluster, nil before Create and after Destroy.
func (p *Provider) Cluster() *Cluster { return p.cluster }

// WithName sets the cluster name.
func (p *Provider) WithName(name string) support.E2EClusterProvider {
	p.opts.Name = name
	return p
}

// WithVersion sets the Kubernetes version of the cached binaries.
func (p *Provider) WithVersion(version string) support.E2EClusterProvider {
	p.opts.KubeVersion = version
	return p
}

// WithPath sets the folder holding the control-plane binaries.
func (p *Provider) WithPath(path string) support.E2EClusterProvider {
	p.opts.BinDir = path
	return p
}

// WithOpts applies e2e-framework cluster options.
func (p *Provider) WithOpts(opts ...support.ClusterOpts) support.E2EClusterProvider {
	for _, o := range opts {
		o(p)
	}
	return p
}

// SetDefaults fills unset options.
func (p *Provider) SetDefaults() support.E2EClusterProvider {
	p.opts.defaults()
	return p
}

// Create starts the cluster and returns its kubeconfig path. Arguments are
// not used.
func (p *Provider) Create(ctx context.Context, _ ...string) (string, error) {
	if p.cluster != nil {
		return "", fmt.Errorf("local cluster %s is already running", p.cluster.Name())
	}
	c, err := Start(ctx, p.opts)
	if err != nil {
		return "", err
	}
	p.cluster = c
	return c.Kubeconfig(), nil
}

// CreateWithConfig is Create: a local cluster has no configuration file.
func (p *Provider) CreateWithConfig(ctx context.Context, configFile string) (string, error) {
	if configFile != "" {
		return "", errors.New("the local provider takes no configuration file; use its Options")
	}
	return p.Create(ctx)
}

// GetKubeconfig is the admin kubeconfig path, empty before Create.
func (p *Provider) GetKubeconfig() string {
	if p.cluster == nil {
		return ""
	}
	return p.cluster.Kubeconfig()
}

// GenerateKubeconfig returns the same kubeconfig as GetKubeconfig.
func (p *Provider) GenerateKubeconfig(...string) (string, error) {
	if p.cluster == nil {
		return "", errors.New("the local cluster is not running")
	}
	return p.cluster.Kubeconfig(), nil
}

// GetKubectlContext is the kubeconfig context, the cluster's name.
func (p *Provider) GetKubectlContext() string { return p.opts.Name }

// ExportLogs copies each component's log into dest.
func (p *Provider) ExportLogs(_ context.Context, dest string) error {
	if p.cluster == nil {
		return errors.New("the local cluster is not running")
	}
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return err
	}
	return os.CopyFS(dest, os.DirFS(p.cluster.LogDir()))
}

// Destroy stops the cluster and removes its temporary folder.
func (p *Provider) Destroy(context.Context) error {
	if p.cluster == nil {
		return nil
	}
	err := p.cluster.Stop()
	p.cluster = nil
	return err
}

// RestartControllerManager restarts the cluster's kube-controller-manager
// (see Cluster.RestartControllerManager).
func (p *Provider) RestartControllerManager(ctx context.Context) error {
	if p.cluster == nil {
		return errors.New("the local cluster is not running")
	}
	return p.cluster.RestartControllerManager(ctx)
}

// WaitForControlPlane returns at once: Create already waited for the API
// server's /readyz and the controller manager's /healthz.
func (p *Provider) WaitForControlPlane(context.Context, klient.Client) error { return nil }

// KubernetesRestConfig is an admin client configuration, nil before Create.
func (p *Provider) KubernetesRestConfig() *rest.Config {
	if p.cluster == nil {
		return nil
	}
	cfg, err := p.cluster.RESTConfig()
	if err != nil {
		return nil
	}
	return cfg
}
