package finalizer

import (
	"context"
	"os"
	"strconv"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/steadystate-dev/steadystate/cluster"
	"github.com/steadystate-dev/steadystate/suites/subject"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// The move target: a second cluster of the suite's provider (local or
// kind), started on first use in each parallel process and deleted after
// the suite.
var (
	targetOnce sync.Once
	target     cluster.Provider
	targetREST *rest.Config
	targetErr  error
)

// moveTarget returns the target's kubeconfig path and client config, or
// skips the spec when the provider cannot make a second cluster (existing).
func moveTarget(_ context.Context, m subject.MovableResource) (kubeconfig string, cfg *rest.Config) {
	c := testenv.Run().Cluster
	if c.Provider == cluster.Existing {
		Skip("moving needs a second cluster, which the harness makes only with PROVIDER=local or kind")
	}
	targetOnce.Do(func() {
		startCtx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		c.Progress = GinkgoWriter
		name := "move-target-" + strconv.Itoa(os.Getpid())
		c.Name, c.Kind.Name = name, name
		if target, targetErr = cluster.New(c); targetErr != nil {
			return
		}
		// Stopped after the process's last spec, whatever became of
		// its start: a kind cluster half made is deleted too.
		testenv.AtTeardown(target.Destroy)
		var path string
		if path, targetErr = target.Create(startCtx); targetErr != nil {
			return
		}
		if targetREST, targetErr = clientcmd.BuildConfigFromFlags("", path); targetErr != nil {
			return
		}
		targetErr = m.Install(startCtx, targetREST)
	})
	Expect(targetErr).NotTo(HaveOccurred(), "start the move target cluster")
	return target.GetKubeconfig(), targetREST
}
