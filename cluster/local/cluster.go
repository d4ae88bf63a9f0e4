package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/steadystate-dev/steadystate/internal/freeport"
	"github.com/steadystate-dev/steadystate/internal/proc"
)

// Options configure a local cluster. The zero value gives the defaults.
type Options struct {
	// Name names the cluster: its kubeconfig context and temporary folder.
	// Default "steadystate".
	Name string
	// KubeVersion selects the cached binaries built by `make kube-bins`.
	// Default DefaultKubeVersion. Not used when BinDir is set.
	KubeVersion string
	// BinDir is a folder holding etcd, kube-apiserver and
	// kube-controller-manager (KUBE_BIN_DIR); it overrides the cache.
	BinDir string
	// Controllers are the kube-controller-manager controllers to run.
	// Default DefaultControllers.
	Controllers []string
	// APIServerArgs are extra kube-apiserver flags, appended last so they
	// override the defaults (for example --watch-cache=false).
	APIServerArgs []string
	// LogDir receives one log file per component and is kept after Stop.
	// Default: a folder inside the cluster's temporary folder, removed by Stop.
	LogDir string
	// StopGrace is how long a component may take to exit after SIGTERM
	// before it is killed. Default 5s.
	StopGrace time.Duration
	// Progress, when set, receives one line per start-up step.
	Progress io.Writer
	// FreshStore starts etcd on an empty store instead of the seeded store
	// (see seed.go): the API server then writes its bootstrap objects
	// itself, and the cluster is ready about a second later.
	FreshStore bool
	// Nodes is the number of simulated nodes (see nodes.go): kube-scheduler
	// places pods on them and kwok plays their lifecycle, so pods run and
	// become Ready, Deployments Available and Jobs Complete, with no
	// kubelet, image or registry. 0 (the default) runs none, as NoNodes
	// does; DefaultNodes is the count LOCAL_NODES=on asks for; negative is
	// refused. Off by default until the seeded lost-events scenarios are
	// tuned to pods that run (with nodes, a replay of the lost create no
	// longer breaks what it broke).
	Nodes int
	// NoNodes runs the control plane alone: no kube-scheduler, no kwok, no
	// node, and every pod stays Pending.
	NoNodes bool
	// PodStages is a file of KWOK Stage objects (kwok.x-k8s.io/v1alpha1)
	// that replaces the default pod behaviour (kwok/pod-stages.yaml: Running
	// and Ready at once, a Job's pods Succeeded). Deletion is not a stage:
	// the cluster removes terminating pods itself (see podRemover), so a
	// file with a stage that deletes pods (`delete: true`) is refused: it
	// would bring back KWOK's delete by name, which can remove a same-named
	// successor.
	PodStages string
}

func (o *Options) defaults() {
	if o.Name == "" {
		o.Name = "steadystate"
	}
	if o.KubeVersion == "" {
		o.KubeVersion = DefaultKubeVersion
	}
	if o.Controllers == nil {
		o.Controllers = DefaultControllers
	}
	if o.StopGrace == 0 {
		o.StopGrace = 5 * time.Second
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	if o.Nodes == 0 {
		o.NoNodes = true
	}
}

// check refuses options no cluster can start with.
func (o *Options) check() error {
	if o.NoNodes {
		return nil
	}
	if o.Nodes < 0 {
		return fmt.Errorf("the number of simulated nodes is %d: give a positive count (LOCAL_NODES), or 0 for none", o.Nodes)
	}
	if o.PodStages != "" {
		data, err := os.ReadFile(o.PodStages)
		if err != nil {
			return fmt.Errorf("the pod stages file (LOCAL_POD_STAGES) cannot be read: %v; give a YAML file of KWOK Stage objects, or unset it for the default", err)
		}
		if err := checkPodStages(data); err != nil {
			return fmt.Errorf("the pod stages file %s (LOCAL_POD_STAGES): %v", o.PodStages, err)
		}
	}
	return nil
}

// Cluster is a running local control plane.
type Cluster struct {
	opts       Options
	bins       Binaries
	workDir    string
	logDir     string
	kubeconfig string
	server     string
	etcd       string
	pki        *clusterPKI
	ports      ports

	mu      sync.Mutex
	procs   map[string]*proc.Proc
	remover *podRemover
}

// Component names, also the names of their log files.
const (
	Etcd              = "etcd"
	APIServer         = "kube-apiserver"
	ControllerManager = "kube-controller-manager"
	Scheduler         = "kube-scheduler"
	Kwok              = "kwok"
)

// startAttempts bounds retries when a picked port is taken before it is bound.
const startAttempts = 3

// Start brings up etcd, kube-apiserver, kube-controller-manager and, with
// simulated nodes, kube-scheduler, kwok and the remover of terminating
// pods (podRemover), and returns once the API
// server's /readyz and the controller manager's and scheduler's /healthz
// answer ok and every simulated node is Ready. On any error, everything
// started so far is stopped and removed. ctx bounds the start-up only; the
// cluster runs until Stop.
func Start(ctx context.Context, opts Options) (_ *Cluster, err error) {
	opts.defaults()
	if err := opts.check(); err != nil {
		return nil, err
	}
	bins, err := FindBinaries(opts.BinDir, opts.KubeVersion)
	if err != nil {
		return nil, err
	}
	if missing := bins.missingForNodes(); !opts.NoNodes && len(missing) > 0 {
		return nil, fmt.Errorf("simulated nodes need %s: build them with `make kube-bins` (or `steadystate kube-bins`), or run without simulated nodes (LOCAL_NODES=0)", strings.Join(missing, " and "))
	}
	workDir, err := newWorkDir(opts.Name)
	if err != nil {
		return nil, err
	}
	c := &Cluster{opts: opts, bins: bins, workDir: workDir, procs: map[string]*proc.Proc{}}
	defer func() {
		if err != nil {
			err = errors.Join(err, c.Stop())
		}
	}()
	c.logDir = opts.LogDir
	if c.logDir == "" {
		c.logDir = filepath.Join(workDir, "logs")
	}
	if err := os.MkdirAll(c.logDir, 0o755); err != nil {
		return nil, fmt.Errorf("create log folder: %w", err)
	}
	if c.pki, err = newPKI(filepath.Join(workDir, "pki")); err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		err = c.startOnce(ctx)
		if err == nil || !errors.Is(err, errPortTaken) || attempt == startAttempts {
			return c, err
		}
		fmt.Fprintf(opts.Progress, "cluster %s: a port was taken during start-up, retrying with new ports\n", opts.Name)
	}
}

var errPortTaken = errors.New("port taken")

func (c *Cluster) startOnce(ctx context.Context) (err error) {
	defer func() {
		if err != nil {
			taken := c.anyAddressInUse()
			c.stopProcesses()
			if taken && !errors.Is(err, errPortTaken) {
				err = fmt.Errorf("%w: %v", errPortTaken, err)
			}
		}
	}()
	// The store first, the ports last: making the seed takes seconds and
	// copying it a moment, in which ports picked before would lie free for
	// another start to take.
	seed, err := c.seed(ctx)
	if err != nil {
		return err
	}
	t0, store := time.Now(), "an empty store"
	if seed != "" {
		store = "the seeded store"
	}
	dataDir := filepath.Join(c.workDir, "etcd-data")
	_ = os.RemoveAll(dataDir)
	if seed != "" {
		if err := copyStore(seed, dataDir); err != nil {
			return fmt.Errorf("copy the seeded store %s: %w", seed, err)
		}
	}
	ps, err := freeport.Pick(5)
	if err != nil {
		return err
	}
	p := ports{etcdClient: ps[0], etcdPeer: ps[1], apiServer: ps[2], controllerManager: ps[3], scheduler: ps[4]}
	c.ports = p
	c.server = fmt.Sprintf("https://127.0.0.1:%d", p.apiServer)
	c.etcd = fmt.Sprintf("http://127.0.0.1:%d", p.etcdClient)
	c.progress("starting etcd on 127.0.0.1:%d", p.etcdClient)
	etcd, err := c.start(Etcd, c.bins.Etcd, etcdArgs(dataDir, p))
	if err != nil {
		return err
	}
	if err := waitHealthy(ctx, etcd, p.etcdClient, 30*time.Second, etcdHealth(p.etcdClient)); err != nil {
		return err
	}

	c.kubeconfig = filepath.Join(c.workDir, "kubeconfig")
	if err := writeKubeconfig(c.kubeconfig, c.opts.Name, c.server, c.pki.CACert, c.pki.AdminToken); err != nil {
		return err
	}
	kcmKubeconfig := filepath.Join(c.workDir, "kcm.kubeconfig")
	if err := writeKubeconfig(kcmKubeconfig, c.opts.Name, c.server, c.pki.CACert, c.pki.KCMToken); err != nil {
		return err
	}

	c.progress("starting kube-apiserver on %s", c.server)
	api, err := c.start(APIServer, c.bins.APIServer, append(apiServerArgs(c.pki, p), c.opts.APIServerArgs...))
	if err != nil {
		return err
	}
	var sched, kwok *proc.Proc
	if !c.opts.NoNodes {
		if sched, kwok, err = c.startNodeComponents(p); err != nil {
			return err
		}
	}
	check, err := apiServerReady(c.server, c.pki, seed != "")
	if err != nil {
		return err
	}
	if err := waitHealthy(ctx, api, p.apiServer, 60*time.Second, check); err != nil {
		return err
	}
	if len(c.opts.Controllers) > 0 {
		// kube-controller-manager serves its /healthz at once, then
		// waits up to 10 s for the API server's whole /healthz (post-start
		// hooks the seeded store's readiness leaves out) and exits if it
		// is not there. With several clusters starting at once on a small
		// machine it was not, and the cluster ran on without one (no
		// default service account in any namespace); a check of its exit
		// after the wait could still come a moment before it. So it
		// starts only once the API server's whole /healthz answers.
		full, err := apiServerHealthy(c.server, c.pki)
		if err != nil {
			return err
		}
		if err := waitHealthy(ctx, api, p.apiServer, 60*time.Second, full); err != nil {
			return err
		}
		c.progress("starting kube-controller-manager (%d controllers)", len(c.opts.Controllers))
		kcm, err := c.start(ControllerManager, c.bins.ControllerManager, controllerManagerArgs(c.pki, kcmKubeconfig, c.opts.Controllers, p))
		if err != nil {
			return err
		}
		check, err := controllerManagerHealthy(p.controllerManager, c.pki)
		if err != nil {
			return err
		}
		if err := waitHealthy(ctx, kcm, p.controllerManager, 60*time.Second, check); err != nil {
			return err
		}
	}
	if sched != nil {
		if err := c.waitNodes(ctx, sched, kwok, p); err != nil {
			return err
		}
		if err := c.startPodRemover(ctx, c.kwokKubeconfig()); err != nil {
			return err
		}
	}
	c.progress("ready in %s from %s; kubeconfig %s", time.Since(t0).Round(time.Millisecond), store, c.kubeconfig)
	return nil
}

func (c *Cluster) progress(format string, args ...any) {
	fmt.Fprintf(c.opts.Progress, "cluster %s: "+format+"\n", append([]any{c.opts.Name}, args...)...)
}

// Name is the cluster's name, also its kubeconfig context.
func (c *Cluster) Name() string { return c.opts.Name }

// Kubeconfig is the path of an admin kubeconfig for the cluster.
func (c *Cluster) Kubeconfig() string { return c.kubeconfig }

// Server is the API server's URL.
func (c *Cluster) Server() string { return c.server }

// EtcdEndpoint is etcd's client URL, for faults that act on storage
// directly (compaction).
func (c *Cluster) EtcdEndpoint() string { return c.etcd }

// LogDir is the folder holding each component's log.
func (c *Cluster) LogDir() string { return c.logDir }

// WorkDir is the cluster's temporary folder, removed by Stop.
func (c *Cluster) WorkDir() string { return c.workDir }

// RESTConfig is an admin client configuration for the cluster.
func (c *Cluster) RESTConfig() (*rest.Config, error) {
	return clientcmd.BuildConfigFromFlags("", c.kubeconfig)
}

// Stop stops every component (SIGTERM, then SIGKILL after the grace period)
// and removes the temporary folder. Logs in a caller-given LogDir are kept.
// It is safe to call more than once.
func (c *Cluster) Stop() error {
	c.stopProcesses()
	if err := os.RemoveAll(c.workDir); err != nil {
		return fmt.Errorf("remove %s: %w", c.workDir, err)
	}
	return nil
}
