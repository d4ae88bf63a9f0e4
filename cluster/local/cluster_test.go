package local

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

func startCluster(t *testing.T, opts Options) *Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	c, err := Start(ctx, opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return c
}

func TestStartServesAndStopLeavesNothing(t *testing.T) {
	b := requireBinaries(t)
	logDir := t.TempDir()
	c := startCluster(t, Options{Name: "lifecycle", BinDir: binDirOf(b), LogDir: logDir})

	pids := c.PIDs()
	for _, name := range []string{Etcd, APIServer, ControllerManager} {
		if pids[name] == 0 {
			t.Errorf("%s is not running after Start; running: %v", name, pids)
		}
	}
	// Each component runs on one processor, or on what the environment's
	// GOMAXPROCS says (componentEnv).
	want := "GOMAXPROCS=1"
	if v, set := os.LookupEnv("GOMAXPROCS"); set {
		want = "GOMAXPROCS=" + v
	}
	for _, name := range []string{Etcd, APIServer, ControllerManager} {
		environ, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pids[name]), "environ"))
		if err != nil {
			t.Fatalf("the environment of %s: %v", name, err)
		}
		if !slices.Contains(strings.Split(string(environ), "\x00"), want) {
			t.Errorf("%s runs without %s in its environment", name, want)
		}
	}
	cfg, err := c.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	kube := kubernetes.NewForConfigOrDie(cfg)
	if _, err := kube.CoreV1().Namespaces().Get(t.Context(), "default", metav1.GetOptions{}); err != nil {
		t.Fatalf("get namespace default through the admin kubeconfig: %v", err)
	}
	// The admin kubeconfig presents a token, not a client certificate
	// (see clusterPKI), for the same user and groups.
	if cfg.BearerToken == "" || len(cfg.CertData) > 0 || cfg.CertFile != "" {
		t.Errorf("the admin kubeconfig authenticates with token %t, a client certificate %t; want a token only", cfg.BearerToken != "", len(cfg.CertData) > 0 || cfg.CertFile != "")
	}
	review, err := kube.AuthenticationV1().SelfSubjectReviews().Create(t.Context(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("who the admin kubeconfig is: %v", err)
	}
	if u := review.Status.UserInfo; u.Username != "steadystate-admin" || !slices.Contains(u.Groups, "system:masters") {
		t.Errorf("the admin kubeconfig is %q in %v, want steadystate-admin in system:masters", u.Username, u.Groups)
	}
	if v, err := kube.Discovery().ServerVersion(); err != nil || v.GitVersion != envOr("KUBE_VERSION", DefaultKubeVersion) {
		t.Errorf("server version = %v (err %v), want the stamped %s", v, err, DefaultKubeVersion)
	}

	workDir := c.WorkDir()
	if err := c.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	assertGone(t, pids, workDir)
	for _, name := range []string{Etcd, APIServer, ControllerManager} {
		if info, err := os.Stat(filepath.Join(logDir, name+".log")); err != nil || info.Size() == 0 {
			t.Errorf("log of %s missing or empty after Stop: %v", name, err)
		}
	}
	if err := c.Stop(); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
}

func TestTwoClustersRunSideBySide(t *testing.T) {
	b := requireBinaries(t)
	type result struct {
		c   *Cluster
		err error
	}
	results := make(chan result, 2)
	for _, name := range []string{"source", "target"} {
		go func() {
			c, err := Start(t.Context(), Options{Name: name, BinDir: binDirOf(b)})
			results <- result{c, err}
		}()
	}
	var clusters []*Cluster
	for range 2 {
		r := <-results
		if r.err != nil {
			t.Errorf("Start: %v", r.err)
			continue
		}
		clusters = append(clusters, r.c)
		t.Cleanup(func() {
			if err := r.c.Stop(); err != nil {
				t.Errorf("Stop: %v", err)
			}
		})
	}
	if t.Failed() {
		return
	}
	if clusters[0].Server() == clusters[1].Server() {
		t.Fatalf("both clusters serve on %s", clusters[0].Server())
	}
	kubeOf := func(c *Cluster) kubernetes.Interface {
		cfg, err := c.RESTConfig()
		if err != nil {
			t.Fatal(err)
		}
		return kubernetes.NewForConfigOrDie(cfg)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "only-in-" + clusters[0].Name()}}
	if _, err := kubeOf(clusters[0]).CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := kubeOf(clusters[1]).CoreV1().Namespaces().Get(t.Context(), ns.Name, metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("namespace made in %s is visible in %s (err=%v): the clusters share storage", clusters[0].Name(), clusters[1].Name(), err)
	}
}

func TestStartRejectsBadInput(t *testing.T) {
	cases := []struct {
		name string
		opts Options
		want string
	}{
		{"missing bin dir", Options{BinDir: "/nonexistent/steadystate-bins"}, "KUBE_BIN_DIR=/nonexistent/steadystate-bins is not a folder"},
		{"empty bin dir", Options{BinDir: t.TempDir()}, "KUBE_BIN_DIR must hold etcd, kube-apiserver and kube-controller-manager"},
		{"malformed version", Options{KubeVersion: "1.36"}, `KUBE_VERSION="1.36" is not a Kubernetes release version`},
		{"unbuilt version", Options{KubeVersion: "v1.0.99"}, "make kube-bins KUBE_VERSION=v1.0.99"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("STEADYSTATE_CACHE_DIR", t.TempDir())
			tc.opts.Name = "bad-input"
			before := workDirs(t, tc.opts.Name)
			_, err := Start(t.Context(), tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Start error = %v, want it to contain %q", err, tc.want)
			}
			if after := workDirs(t, tc.opts.Name); len(after) != len(before) {
				t.Errorf("a failed Start left a temporary folder: %v", after)
			}
		})
	}
}

// workDirs lists the temporary folders of clusters named name: other
// clusters on the machine (a suite run beside the tests) do not count.
func workDirs(t *testing.T, name string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(os.TempDir(), workDirPrefix+name+"-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
