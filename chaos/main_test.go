package chaos

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/steadystate-dev/steadystate/cluster/local/localtest"
)

var (
	shared    *localtest.Cluster
	sharedErr error
)

// TestMain runs the tests against one local cluster, or, when re-executed
// as a helper, runs a leader-election replica (the victim of the process
// and failover faults).
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "leader" {
		runLeaderReplica()
		return
	}
	os.Exit(localtest.RunShared(m, "chaos-test", &shared, &sharedErr))
}

func cluster(t *testing.T) *localtest.Cluster { return localtest.Require(t, shared, sharedErr) }

const helperEnv = "STEADYSTATE_CHAOS_HELPER"

// runLeaderReplica is an unmodified client-go leader-election replica with
// short timings. It releases the Lease when terminated (SIGTERM), and not
// when killed.
func runLeaderReplica() {
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		panic(err)
	}
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock, os.Getenv("LEASE_NAMESPACE"), os.Getenv("LEASE_NAME"),
		nil, kubernetes.NewForConfigOrDie(cfg).CoordinationV1(), resourcelock.ResourceLockConfig{Identity: os.Getenv("IDENTITY")})
	if err != nil {
		panic(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
		Lock: lock, ReleaseOnCancel: true,
		LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 250 * time.Millisecond,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) { <-ctx.Done() },
			OnStoppedLeading: func() {},
		},
	})
}
