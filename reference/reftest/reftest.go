package reftest

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/runner"
	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/cluster/local/localtest"
	"github.com/steadystate-dev/steadystate/fixtures"
	"github.com/steadystate-dev/steadystate/internal/config"
	"github.com/steadystate-dev/steadystate/internal/proc"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
	"github.com/steadystate-dev/steadystate/reference/wiring"
)

// Env is a package's shared test environment.
type Env struct {
	Cluster *localtest.Cluster
	Client  client.Client
	Refctl  string
	err     error
}

// Main starts the environment, runs the tests and tears it down; call it
// from TestMain.
func Main(m *testing.M, name string, env *Env) {
	os.Exit(localtest.RunShared(m, name, &env.Cluster, &env.err, env.setup))
}

// setup applies the reference CRDs, makes a client and builds refctl.
// The garbage collector learns kinds from discovery when it starts and
// every 30 s after: kube-controller-manager starts again once every
// reference kind is served, so that what a reference object owns goes
// with it from the first test on (a Stack's children outlived it by the
// collector's rediscovery, longer than a test waits).
func (env *Env) setup(_ *localtest.Cluster, dir string) error {
	ctx := context.Background()
	if err := fixtures.Apply(ctx, env.Cluster.REST, fixtures.Reference, "reference/crds/*.yaml"); err != nil {
		return err
	}
	kinds, err := fs.Glob(fixtures.Reference, "reference/crds/*.yaml")
	if err != nil {
		return err
	}
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		list, err := env.Cluster.Kube.Discovery().ServerResourcesForGroupVersion(v1alpha1.GroupVersion.String())
		if err != nil {
			return false, nil
		}
		served := 0
		for _, r := range list.APIResources {
			if !strings.Contains(r.Name, "/") {
				served++
			}
		}
		return served >= len(kinds), nil
	}); err != nil {
		return fmt.Errorf("the reference kinds are not all served within 1m: %w", err)
	}
	if err := env.Cluster.RestartControllerManager(ctx); err != nil {
		return fmt.Errorf("restart kube-controller-manager once the reference kinds are served: %w", err)
	}
	c, err := client.New(env.Cluster.REST, client.Options{Scheme: wiring.Scheme()})
	if err != nil {
		return err
	}
	env.Client = c
	_, file, _, _ := runtime.Caller(0)
	env.Refctl, err = runner.Build(filepath.Join(filepath.Dir(file), "..", ".."), dir)
	return err
}

// SecondCluster starts another local cluster with the reference CRDs, for
// tests that need two (a move); it is stopped when the test ends.
func SecondCluster(t *testing.T, name string) (*localtest.Cluster, client.Client) {
	t.Helper()
	c := localtest.Start(t, local.Options{Name: name})
	if err := fixtures.Apply(t.Context(), c.REST, fixtures.Reference, "reference/crds/*.yaml"); err != nil {
		t.Fatal(err)
	}
	cl, err := client.New(c.REST, client.Options{Scheme: wiring.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	return c, cl
}

// StartOn runs a subject against another cluster than the environment's.
func (env *Env) StartOn(t testing.TB, c *localtest.Cluster, command string, replicas int, args ...string) *runner.Subject {
	t.Helper()
	start := time.Now()
	s, err := runner.Start(runner.Options{
		Binary: env.Refctl, Command: command, Args: args, Replicas: replicas,
		Upstream: c.REST, Dir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			keepEvidence(t, s, start)
		}
	})
	return s
}

// Require returns the environment or skips/fails with why it is missing.
func (env *Env) Require(t testing.TB) *Env {
	localtest.Require(t, env.Cluster, env.err)
	if env.err != nil {
		t.Fatal(env.err)
	}
	return env
}

// Start runs a subject of command with args behind proxies on the
// environment's cluster; it is stopped when the test ends.
func (env *Env) Start(t testing.TB, command string, replicas int, args ...string) *runner.Subject {
	t.Helper()
	return env.StartOn(t, env.Cluster, command, replicas, args...)
}

// Target is the chaos target for a subject.
func (env *Env) Target(s *runner.Subject) chaos.Target {
	return chaos.Target{Kube: env.Cluster.Kube, Replicas: s.Replicas, Etcd: env.Cluster.EtcdEndpoint()}
}

// Repeat is how many times the directed scenarios run: REFERENCE_REPEAT,
// default 2 (the determinism check is REFERENCE_REPEAT=20).
func Repeat() int { return config.FromEnv().ReferenceRepeat }

// Eventually polls cond until it holds or timeout passes.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	localtest.Eventually(t, timeout, what, cond)
}

// keepEvidence keeps a failed test's evidence in $ARTIFACTS/<test>/ when
// ARTIFACTS is set, the way the suites keep a failed spec's: the replicas'
// proxies as evidence.json and the merged history.txt (package evidence),
// and their logs; it prints the logs' last lines.
func keepEvidence(t testing.TB, s *runner.Subject, start time.Time) {
	if settings := config.FromEnv(); settings.ArtifactsSet {
		root := settings.Artifacts
		dir := filepath.Join(root, strings.ReplaceAll(t.Name(), "/", "_"))
		c := evidence.NewCollector(t.Name(), start)
		for i, r := range s.Replicas {
			c.AddProxy(r.Identity, s.Proxy(i))
			if data, err := os.ReadFile(s.Proc(i).LogPath()); err == nil {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Logf("keep %s's log: %v", r.Identity, err)
				} else if err := os.WriteFile(filepath.Join(dir, r.Identity+".log"), data, 0o644); err != nil {
					t.Logf("keep %s's log: %v", r.Identity, err)
				}
			}
		}
		if err := os.MkdirAll(dir, 0o755); err == nil {
			if err := c.WriteArtifacts(dir); err != nil {
				t.Logf("keep the evidence in %s: %v", dir, err)
			}
		}
	}
	for i, r := range s.Replicas {
		t.Logf("last lines of %s (full log and history.txt in $ARTIFACTS when set):\n%s", r.Identity, proc.Tail(s.Proc(i).LogPath(), 20))
	}
}

// EachMode runs scenario for every mode ("" is the correct mode), Repeat()
// times each, as subtests bug=<mode>/run_<i>.
func EachMode(t *testing.T, modes []string, scenario func(t *testing.T, bug string)) {
	for _, bug := range modes {
		t.Run("bug="+bug, func(t *testing.T) {
			for i := range Repeat() {
				t.Run("run "+strconv.Itoa(i), func(t *testing.T) { scenario(t, bug) })
			}
		})
	}
}
