package wiring

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
)

// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

// Options are the flags every reference controller shares. Defaults are
// controller-runtime's and client-go's; tests shorten the durations.
type Options struct {
	Kubeconfig      string
	Identity        string
	LeaderElect     bool
	LeaseName       string
	LeaseNamespace  string
	LeaseDuration   time.Duration
	RenewDeadline   time.Duration
	RetryPeriod     time.Duration
	ReleaseOnCancel bool
	HealthAddr      string
	MetricsAddr     string
	// WatchNamespace limits the controller to one namespace ("" for all),
	// so several instances can run side by side, one per spec.
	WatchNamespace string
	Bug            string
}

// Bind registers the flags on fs with their defaults.
func (o *Options) Bind(fs *flag.FlagSet, controller string) {
	host, _ := os.Hostname()
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "kubeconfig path (default: in-cluster, then $KUBECONFIG)")
	fs.StringVar(&o.Identity, "identity", host, "this replica's identity, used as its leader-election identity")
	fs.BoolVar(&o.LeaderElect, "leader-elect", true, "take part in leader election")
	fs.StringVar(&o.LeaseName, "lease-name", "refctl-"+controller, "leader-election Lease name")
	fs.StringVar(&o.LeaseNamespace, "lease-namespace", "default", "leader-election Lease namespace")
	fs.DurationVar(&o.LeaseDuration, "lease-duration", 15*time.Second, "leader-election lease duration")
	fs.DurationVar(&o.RenewDeadline, "renew-deadline", 10*time.Second, "leader-election renew deadline")
	fs.DurationVar(&o.RetryPeriod, "retry-period", 2*time.Second, "leader-election retry period")
	fs.BoolVar(&o.ReleaseOnCancel, "release-on-cancel", true, "release the Lease on graceful shutdown")
	fs.StringVar(&o.HealthAddr, "health-addr", ":8081", "health probe address (/healthz, /readyz); 0 disables")
	fs.StringVar(&o.MetricsAddr, "metrics-addr", ":8080", "metrics address; 0 disables")
	fs.StringVar(&o.WatchNamespace, "watch-namespace", "", "reconcile only this namespace (default: all)")
	fs.StringVar(&o.Bug, "bug", "", "seeded bug to switch on: "+strings.Join(catalog.BugsOf(controller), ", "))
}

// Validate checks the bug and the durations.
func (o *Options) Validate(controller string) error {
	if err := catalog.ValidateBug(controller, o.Bug); err != nil {
		return err
	}
	switch {
	case o.LeaseDuration <= 0 || o.RenewDeadline <= 0 || o.RetryPeriod <= 0:
		return errors.New("--lease-duration, --renew-deadline and --retry-period must be positive durations such as 15s")
	case o.RenewDeadline >= o.LeaseDuration:
		return fmt.Errorf("--renew-deadline (%s) must be shorter than --lease-duration (%s)", o.RenewDeadline, o.LeaseDuration)
	case o.RetryPeriod >= o.RenewDeadline:
		return fmt.Errorf("--retry-period (%s) must be shorter than --renew-deadline (%s)", o.RetryPeriod, o.RenewDeadline)
	case o.Identity == "":
		return errors.New("--identity must not be empty")
	}
	return nil
}

// Scheme has the built-in kinds and the reference API.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = v1alpha1.AddToScheme(s)
	return s
}

// NewManager builds the manager the options describe.
func NewManager(o Options) (manager.Manager, error) {
	cfg, err := restConfig(o.Kubeconfig)
	if err != nil {
		return nil, err
	}
	// Our own lock, so the Lease holder is --identity (controller-runtime
	// would use hostname_uuid) and matches the replica's proxy identity.
	var lock resourcelock.Interface
	if o.LeaderElect {
		coord, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return nil, err
		}
		lock, err = resourcelock.New(resourcelock.LeasesResourceLock, o.LeaseNamespace, o.LeaseName,
			coord.CoreV1(), coord.CoordinationV1(), resourcelock.ResourceLockConfig{Identity: o.Identity})
		if err != nil {
			return nil, err
		}
	}
	var cacheOpts cache.Options
	if o.WatchNamespace != "" {
		cacheOpts.DefaultNamespaces = map[string]cache.Config{o.WatchNamespace: {}}
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Cache:                               cacheOpts,
		LeaderElectionResourceLockInterface: lock,
		Scheme:                              Scheme(),
		LeaderElection:                      o.LeaderElect,
		LeaderElectionID:                    o.LeaseName,
		LeaderElectionNamespace:             o.LeaseNamespace,
		LeaderElectionReleaseOnCancel:       o.ReleaseOnCancel,
		LeaseDuration:                       &o.LeaseDuration,
		RenewDeadline:                       &o.RenewDeadline,
		RetryPeriod:                         &o.RetryPeriod,
		HealthProbeBindAddress:              o.HealthAddr,
		Metrics:                             metricsserver.Options{BindAddress: o.MetricsAddr},
	})
	if err != nil {
		return nil, err
	}
	if o.HealthAddr != "0" {
		if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
			return nil, err
		}
		if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
			return nil, err
		}
	}
	return mgr, nil
}

// Client is a direct (uncached) client for kubeconfig with the reference
// API in its scheme.
func Client(kubeconfig string) (client.Client, error) {
	cfg, err := restConfig(kubeconfig)
	if err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: Scheme()})
}

func restConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err != nil {
			return nil, fmt.Errorf("--kubeconfig %s: %w", kubeconfig, err)
		}
		return cfg, nil
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return nil, fmt.Errorf("no cluster configuration: pass --kubeconfig (%w)", err)
	}
	return cfg, nil
}
