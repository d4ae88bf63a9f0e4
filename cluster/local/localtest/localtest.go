package localtest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/internal/config"
)

// RequireBinaries finds the Kubernetes binaries. Without them a test cannot
// run: it is skipped with the reason, or fails when
// STEADYSTATE_REQUIRE_BINARIES=1 (as `make test` sets, after building them).
func RequireBinaries(t testing.TB) local.Binaries {
	t.Helper()
	s := config.FromEnv()
	b, err := local.FindBinaries(s.KubeBinDir, s.KubeVersion)
	if err != nil {
		if s.RequireBinaries {
			t.Fatalf("Kubernetes binaries are required: %v", err)
		}
		t.Skipf("needs Kubernetes binaries, which are not built: %v", err)
	}
	return b
}

// Cluster is a running local cluster with admin clients.
type Cluster struct {
	*local.Cluster
	REST *rest.Config
	Kube kubernetes.Interface
}

// StartShared starts a cluster for a whole package, from TestMain: call
// stop when m.Run returns. The error says why no cluster could start
// (binaries not built, start-up failed); tests then call Require.
func StartShared(opts local.Options) (c *Cluster, stop func(), err error) {
	s := config.FromEnv()
	b, err := local.FindBinaries(s.KubeBinDir, s.KubeVersion)
	if err != nil {
		return nil, func() {}, err
	}
	if opts.BinDir == "" {
		opts.BinDir = filepath.Dir(b.APIServer)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	lc, err := local.Start(ctx, opts)
	if err != nil {
		return nil, func() {}, err
	}
	cfg, err := lc.RESTConfig()
	if err != nil {
		return nil, func() {}, errors.Join(err, lc.Stop())
	}
	cfg.QPS, cfg.Burst = 200, 400
	return &Cluster{Cluster: lc, REST: cfg, Kube: kubernetes.NewForConfigOrDie(cfg)}, func() { _ = lc.Stop() }, nil
}

// Require returns the shared cluster, or skips (fails under
// STEADYSTATE_REQUIRE_BINARIES=1) with the reason it is missing.
func Require(t testing.TB, c *Cluster, startErr error) *Cluster {
	t.Helper()
	if c != nil {
		return c
	}
	if config.FromEnv().RequireBinaries {
		t.Fatalf("a local cluster is required: %v", startErr)
	}
	t.Skipf("needs a local cluster, which could not start: %v", startErr)
	return nil
}

// Start starts a local cluster that is stopped when the test ends. Logs go
// to a test temporary folder unless opts.LogDir is set.
func Start(t testing.TB, opts local.Options) *Cluster {
	t.Helper()
	b := RequireBinaries(t)
	if opts.BinDir == "" {
		opts.BinDir = filepath.Dir(b.APIServer)
	}
	if opts.LogDir == "" {
		opts.LogDir = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := local.Start(ctx, opts)
	if err != nil {
		t.Fatalf("start a local cluster: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("stop the local cluster: %v", err)
		}
	})
	cfg, err := c.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 200, 400
	return &Cluster{Cluster: c, REST: cfg, Kube: kubernetes.NewForConfigOrDie(cfg)}
}

// Namespace creates a namespace with a unique name for the test, waits
// for its default service account (pods are refused before it exists), and
// deletes it when the test ends.
func (c *Cluster) Namespace(t testing.TB, prefix string) string {
	t.Helper()
	ns, err := c.Kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	t.Cleanup(func() {
		// Not waited for: objects a test left stuck on purpose may hold it.
		_ = c.Kube.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	})
	Eventually(t, 30*time.Second, "the default service account of "+ns.Name, func() bool {
		_, err := c.Kube.CoreV1().ServiceAccounts(ns.Name).Get(context.Background(), "default", metav1.GetOptions{})
		return err == nil
	})
	return ns.Name
}

// Eventually polls cond every 20 ms until it holds, failing the test with
// what it waited for once timeout has passed.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// RunShared is a TestMain body: it starts one cluster named name for the
// package (its logs in a temporary folder), runs each setup step with the
// cluster and that folder, stores the cluster in *c (or why it or a step
// failed in *startErr, for Require), runs the tests and stops it.
func RunShared(m *testing.M, name string, c **Cluster, startErr *error, setup ...func(c *Cluster, dir string) error) int {
	dir, err := os.MkdirTemp("", name+"-logs-")
	if err != nil {
		*startErr = err
		return m.Run()
	}
	defer os.RemoveAll(dir)
	var stop func()
	*c, stop, *startErr = StartShared(local.Options{Name: name, LogDir: dir})
	defer stop()
	for _, step := range setup {
		if *startErr != nil {
			break
		}
		*startErr = step(*c, dir)
	}
	return m.Run()
}
