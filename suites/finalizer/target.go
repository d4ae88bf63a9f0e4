package finalizer

import (
	"context"
	"os"
	"strconv"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL reads best unqualified.
	. "github.com/onsi/gomega"    //nolint:revive // as above.
	"k8s.io/client-go/rest"

	"github.com/steadystate-dev/steadystate/cluster"
	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/fixtures"
)

// The move target: a second local cluster, started on first use in each
// parallel process and stopped after the suite.
var (
	targetOnce sync.Once
	target     *local.Cluster
	targetREST *rest.Config
	targetErr  error
)

// moveTarget returns the target cluster, or skips the spec when the suite
// does not run on the local provider (it cannot make a second cluster).
func moveTarget(ctx context.Context) (*local.Cluster, *rest.Config) {
	cfg := cluster.ConfigFromEnv()
	if cfg.Provider != "" && cfg.Provider != cluster.Local {
		Skip("moving needs a second cluster, which the harness makes only with PROVIDER=local")
	}
	targetOnce.Do(func() {
		startCtx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cfg.Progress = GinkgoWriter
		target, targetErr = local.Start(startCtx, cfg.LocalOptions("move-target-"+strconv.Itoa(os.Getpid())))
		if targetErr != nil {
			return
		}
		if targetREST, targetErr = target.RESTConfig(); targetErr != nil {
			return
		}
		targetErr = fixtures.Apply(startCtx, targetREST, fixtures.Reference, "reference/crds/*.yaml")
	})
	Expect(targetErr).NotTo(HaveOccurred(), "start the move target cluster")
	return target, targetREST
}

func stopTarget() {
	if target != nil {
		Expect(target.Stop()).To(Succeed())
	}
}
