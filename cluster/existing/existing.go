package existing

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/e2e-framework/klient"
	"sigs.k8s.io/e2e-framework/support"
)

// Provider points at a running cluster. It implements e2e-framework's
// E2EClusterProvider; Create validates and Destroy does nothing.
type Provider struct {
	kubeconfig string
	context    string
	rest       *rest.Config
	// written is a kubeconfig Create wrote for the pod's ServiceAccount,
	// removed by Destroy.
	written string
}

var _ support.E2EClusterProvider = (*Provider)(nil)

// NewProvider returns a provider for the cluster in kubeconfig (default: the
// KUBECONFIG rules of kubectl) and context (default: its current context).
func NewProvider(kubeconfig, context string) *Provider {
	return &Provider{kubeconfig: kubeconfig, context: context}
}

// Load parses the kubeconfig and resolves the context, returning an error
// that names the file or context and says what to do.
func Load(kubeconfig, contextName string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	where := "the default kubeconfig ($KUBECONFIG or ~/.kube/config)"
	if kubeconfig != "" {
		if _, err := os.Stat(kubeconfig); err != nil {
			return nil, fmt.Errorf("kubeconfig %s: %w: pass the path of an existing kubeconfig", kubeconfig, errors.Unwrap(err))
		}
		rules = &clientcmd.ClientConfigLoadingRules{ExplicitPath: kubeconfig}
		where = "kubeconfig " + kubeconfig
	}
	raw, err := rules.Load()
	if err != nil {
		return nil, fmt.Errorf("%s does not parse: %v: fix the file or pass another", where, err)
	}
	if contextName == "" {
		contextName = raw.CurrentContext
		if contextName == "" {
			return nil, fmt.Errorf("%s has no current context: pass a context name (one of %v)", where, contextNames(raw.Contexts))
		}
	}
	if _, ok := raw.Contexts[contextName]; !ok {
		return nil, fmt.Errorf("context %q does not exist in %s: use one of %v", contextName, where, contextNames(raw.Contexts))
	}
	cfg, err := clientcmd.NewNonInteractiveClientConfig(*raw, contextName, &clientcmd.ConfigOverrides{}, rules).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("context %q in %s is not usable: %v", contextName, where, err)
	}
	return cfg, nil
}

func contextNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	return names
}

// WithName does nothing: an existing cluster keeps its name.
func (p *Provider) WithName(string) support.E2EClusterProvider { return p }

// WithVersion does nothing: an existing cluster keeps its version.
func (p *Provider) WithVersion(string) support.E2EClusterProvider { return p }

// WithPath sets the kubeconfig path.
func (p *Provider) WithPath(path string) support.E2EClusterProvider {
	p.kubeconfig = path
	return p
}

// WithOpts applies e2e-framework cluster options.
func (p *Provider) WithOpts(opts ...support.ClusterOpts) support.E2EClusterProvider {
	for _, o := range opts {
		o(p)
	}
	return p
}

// SetDefaults does nothing.
func (p *Provider) SetDefaults() support.E2EClusterProvider { return p }

// Create validates the kubeconfig and context, waits until the API server
// answers /readyz (a pod in a new cluster may start before its Service
// routes), and returns the kubeconfig path.
//
// With no kubeconfig anywhere (no path given, $KUBECONFIG unset, no
// ~/.kube/config) inside a pod, the cluster is the one the pod runs in:
// Create writes a kubeconfig for the pod's ServiceAccount and uses that.
func (p *Provider) Create(ctx context.Context, _ ...string) (string, error) {
	if p.kubeconfig == "" && noKubeconfig() {
		path, err := writeInCluster()
		switch {
		case err == nil:
			p.kubeconfig, p.written, p.context = path, path, inClusterName
		case !errors.Is(err, rest.ErrNotInCluster):
			return "", err
		}
	}
	cfg, err := Load(p.kubeconfig, p.context)
	if err != nil {
		return "", err
	}
	p.rest = cfg
	if err := p.awaitReady(ctx); err != nil {
		return "", err
	}
	return p.GetKubeconfig(), nil
}

// awaitReady polls /readyz until it answers ok or ctx ends.
func (p *Provider) awaitReady(ctx context.Context) error {
	cs, err := kubernetes.NewForConfig(p.rest)
	if err != nil {
		return err
	}
	var last error
	err = wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
		last = cs.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error()
		return last == nil, nil
	})
	if err != nil {
		return fmt.Errorf("the API server at %s did not answer /readyz: %v (last: %v)", p.rest.Host, err, last)
	}
	return nil
}

// CreateWithConfig uses configFile as the kubeconfig.
func (p *Provider) CreateWithConfig(ctx context.Context, configFile string) (string, error) {
	p.kubeconfig = configFile
	return p.Create(ctx)
}

// GetKubeconfig is the kubeconfig path (empty means kubectl's default rules).
func (p *Provider) GetKubeconfig() string {
	if p.kubeconfig != "" {
		return p.kubeconfig
	}
	return clientcmd.NewDefaultClientConfigLoadingRules().GetDefaultFilename()
}

// GenerateKubeconfig returns the kubeconfig path.
func (p *Provider) GenerateKubeconfig(...string) (string, error) { return p.GetKubeconfig(), nil }

// GetKubectlContext is the context in use.
func (p *Provider) GetKubectlContext() string { return p.context }

// ExportLogs is not possible from outside a cluster we did not make.
func (p *Provider) ExportLogs(_ context.Context, dest string) error {
	return os.WriteFile(filepath.Join(dest, "README"), []byte("existing cluster: control-plane logs are not reachable from the harness\n"), 0o644)
}

// Destroy leaves the cluster alone (it is not ours) and removes the
// kubeconfig Create wrote, if any.
func (p *Provider) Destroy(context.Context) error {
	if p.written == "" {
		return nil
	}
	err := os.Remove(p.written)
	p.written = ""
	return err
}

// WaitForControlPlane waits until the API server answers /readyz.
func (p *Provider) WaitForControlPlane(ctx context.Context, _ klient.Client) error {
	if p.rest == nil {
		return errors.New("call Create first")
	}
	return p.awaitReady(ctx)
}

// KubernetesRestConfig is the client configuration, nil before Create.
func (p *Provider) KubernetesRestConfig() *rest.Config { return p.rest }
