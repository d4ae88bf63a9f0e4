package cluster

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"sigs.k8s.io/e2e-framework/support"

	"github.com/steadystate-dev/steadystate/cluster/existing"
	"github.com/steadystate-dev/steadystate/cluster/kind"
	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/cluster/shared"
	"github.com/steadystate-dev/steadystate/internal/config"
)

// Provider is what every cluster provider implements.
type Provider = support.E2EClusterProvider

// Provider names, the values of PROVIDER.
const (
	Local    = "local"
	Existing = "existing"
	Kind     = "kind"
)

// Config selects and configures a provider. ConfigFromEnv fills it the way
// `make e2e` documents.
type Config struct {
	// Provider is local (default), kind or existing. PROVIDER.
	Provider string
	// Name names a cluster the harness creates. Default "steadystate".
	Name string
	// KubeVersion picks cached Kubernetes binaries for local. KUBE_VERSION.
	KubeVersion string
	// BinDir overrides the binary cache for local. KUBE_BIN_DIR.
	BinDir string
	// Kubeconfig and Context select an existing cluster. KUBECONFIG, KUBE_CONTEXT.
	Kubeconfig, Context string
	// Controllers are the kube-controller-manager controllers a local
	// cluster runs, comma-separated in KCM_CONTROLLERS; default
	// local.DefaultControllers. A suite whose subject is one of them (the
	// ReplicaSet controller) runs the cluster without it.
	Controllers []string
	// Nodes is the number of simulated nodes a local cluster has, from
	// LOCAL_NODES: empty, "off" or 0 for none (no kube-scheduler, no
	// kwok: pods stay Pending, the default), "on" for local.DefaultNodes,
	// or a count.
	Nodes string
	// PodStages is a file of KWOK Stage objects replacing the simulated
	// pods' default behaviour. LOCAL_POD_STAGES.
	PodStages string
	// APIServerArgs are extra kube-apiserver flags of the local cluster
	// (LOCAL_APISERVER_ARGS), after its own, so they override them.
	APIServerArgs []string
	// Kind configures the kind provider: KIND_CLUSTER_NAME, KIND_NODE_IMAGE,
	// KIND_CONFIG (kind-config.yaml), KIND_KEEP=1 to keep the cluster.
	Kind kind.Options
	// Artifacts is where control-plane logs go, in a folder per cluster.
	// ARTIFACTS, default _artifacts.
	Artifacts string
	// Progress receives start-up progress lines.
	Progress io.Writer
	// Share, when its Dir is set, is one cluster the processes of a run
	// share (package shared): its Owner starts it, the others use it.
	Share Share
}

// Share is a cluster shared by the processes of one run through a folder.
type Share struct {
	// Dir is the folder they share it through.
	Dir string
	// Owner says this process starts the cluster and tears it down once
	// every other has left; the others are guests.
	Owner bool
}

// ConfigFromEnv reads PROVIDER, KUBE_VERSION, KUBE_BIN_DIR, KUBECONFIG,
// KUBE_CONTEXT, ARTIFACTS, KCM_CONTROLLERS, LOCAL_NODES, LOCAL_POD_STAGES,
// LOCAL_APISERVER_ARGS and the KIND_* variables from the environment now (config.FromEnv).
func ConfigFromEnv() Config { return ConfigFrom(config.FromEnv()) }

// ConfigFrom is the provider's configuration of the settings s.
func ConfigFrom(s config.Settings) Config {
	return Config{
		Provider:      s.Provider,
		KubeVersion:   s.KubeVersion,
		BinDir:        s.KubeBinDir,
		Kubeconfig:    s.Kubeconfig,
		Context:       s.KubeContext,
		Artifacts:     s.Artifacts,
		Controllers:   s.KCMControllers,
		Nodes:         s.LocalNodes,
		PodStages:     s.LocalPodStages,
		APIServerArgs: s.LocalAPIServerArgs,
		Kind: kind.Options{
			Name:        s.KindClusterName,
			Image:       s.KindNodeImage,
			KubeVersion: s.KubeVersion,
			ConfigFile:  s.KindConfig,
			Keep:        s.KindKeep,
		},
	}
}

// Providers lists the valid provider names.
var Providers = []string{Local, Kind, Existing}

// LocalOptions are the options of a local cluster named name (default
// cfg.Name, else "steadystate"), its logs in $ARTIFACTS/cluster-<name>/.
func (cfg Config) LocalOptions(name string) local.Options {
	if name == "" {
		name = cfg.Name
	}
	if name == "" {
		name = "steadystate"
	}
	artifacts := cfg.Artifacts
	if artifacts == "" {
		artifacts = config.DefaultArtifacts
	}
	o := local.Options{
		Name:          name,
		KubeVersion:   cfg.KubeVersion,
		BinDir:        cfg.BinDir,
		LogDir:        filepath.Join(artifacts, "cluster-"+name),
		Controllers:   cfg.Controllers,
		Progress:      cfg.Progress,
		PodStages:     cfg.PodStages,
		APIServerArgs: cfg.APIServerArgs,
	}
	// A bad count (New says why) becomes a negative one, which
	// local.Start refuses.
	if n, err := cfg.nodes(); err != nil {
		o.Nodes = -1
	} else if n == 0 {
		o.NoNodes = true
	} else {
		o.Nodes = n
	}
	return o
}

// nodes is the number of simulated nodes LOCAL_NODES asks for: none when
// it is empty or "off", local.DefaultNodes for "on", else the count.
func (cfg Config) nodes() (int, error) {
	switch cfg.Nodes {
	case "", "off":
		return 0, nil
	case "on":
		return local.DefaultNodes, nil
	}
	n, err := strconv.Atoi(cfg.Nodes)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("LOCAL_NODES=%q is not a number of simulated nodes: give a count such as 2, on for 2, or 0 or off for none (pods then stay Pending)", cfg.Nodes)
	}
	return n, nil
}

// Nodes is what a run does about its local cluster's simulated nodes for
// a subject file (NodesFor).
type Nodes struct {
	// TurnOn says the run sets LOCAL_NODES=on, and Said says so in a
	// line: the file needs nodes that run its pods (run.needsNodes) and
	// LOCAL_NODES is unset.
	TurnOn bool
	Said   string
	// Count is how many the local cluster has; 0 on other providers,
	// whose clusters have nodes of their own.
	Count int
	// Warning, when set, is a line saying that the file's objects make
	// pods (subjectfile.PodMaker) that will stay Pending, though the
	// file does not say it needs nodes.
	Warning string
}

// NodesFor is what a run on provider, with LOCAL_NODES set to localNodes,
// does about simulated nodes for the subject file subject, which says
// whether it needs nodes that run its pods (run.needsNodes) and names its
// first object that makes pods (podMaker, "" for none). A file that needs
// them gets them when LOCAL_NODES is unset, and is refused when it turns
// them off: its pods would stay Pending and its convergence properties
// break for the cluster, not the controller.
func NodesFor(subject, provider, localNodes string, needsNodes bool, podMaker string) (Nodes, error) {
	if provider != "" && provider != Local {
		return Nodes{}, nil
	}
	if needsNodes && localNodes == "" {
		return Nodes{TurnOn: true, Count: local.DefaultNodes, Said: fmt.Sprintf("subject file %s needs nodes that run its pods (run.needsNodes): the local cluster gets simulated nodes (LOCAL_NODES=on)", subject)}, nil
	}
	n, err := Config{Nodes: localNodes}.nodes()
	switch {
	case err != nil:
		return Nodes{}, err
	case n > 0:
		return Nodes{Count: n}, nil
	case needsNodes:
		return Nodes{}, fmt.Errorf("subject file %s needs nodes that run its pods (run.needsNodes), but LOCAL_NODES=%s gives the local cluster none: unset LOCAL_NODES or set it to on", subject, localNodes)
	case podMaker != "":
		return Nodes{Warning: fmt.Sprintf("%s makes pods, which stay Pending on this local cluster without nodes; if they must run for it to become ready, set run.needsNodes: true in %s (or LOCAL_NODES=on)", podMaker, subject)}, nil
	}
	return Nodes{}, nil
}

// New returns the provider cfg names, or an error listing the valid ones.
// A shared cluster's guest uses its owner's cluster, whatever the
// provider; its owner wraps the provider named.
func New(cfg Config) (Provider, error) {
	if cfg.Share.Dir != "" && !cfg.Share.Owner {
		return shared.NewGuest(cfg.Share.Dir), nil
	}
	p, err := newProvider(cfg)
	if err != nil || cfg.Share.Dir == "" {
		return p, err
	}
	return shared.NewOwner(p, cfg.Share.Dir, cfg.Progress), nil
}

func newProvider(cfg Config) (Provider, error) {
	switch cfg.Provider {
	case "", Local:
		if _, err := cfg.nodes(); err != nil {
			return nil, err
		}
		return local.NewProvider(cfg.LocalOptions("")), nil
	case Kind:
		o := cfg.Kind
		if o.Progress == nil {
			o.Progress = cfg.Progress
		}
		return kind.NewProvider(o), nil
	case Existing:
		// With no explicit kubeconfig, KUBECONFIG may list several files:
		// leave it to kubectl's loading rules.
		kubeconfig := cfg.Kubeconfig
		if strings.Contains(kubeconfig, string(os.PathListSeparator)) {
			kubeconfig = ""
		}
		return existing.NewProvider(kubeconfig, cfg.Context), nil
	default:
		return nil, fmt.Errorf("PROVIDER=%q is not a cluster provider: use one of %s", cfg.Provider, strings.Join(Providers, ", "))
	}
}
