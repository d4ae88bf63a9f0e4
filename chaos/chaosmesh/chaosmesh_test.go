package chaosmesh

import (
	"context"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/cluster/local/localtest"
	"github.com/steadystate-dev/steadystate/fixtures"
	"github.com/steadystate-dev/steadystate/internal/pki"
	"github.com/steadystate-dev/steadystate/internal/proc"
	"github.com/steadystate-dev/steadystate/runs/upstream"
)

// The adapter against a real Chaos Mesh controller-manager, built from
// the Go module proxy by `make upstream-bins` (upstream.ChaosMesh) and
// run as a process against a local cluster with Chaos Mesh's own CRDs:
// PodChaos really kills the selected pod. The local cluster has no nodes,
// so a NetworkChaos finds no running pod to act on (and no chaos-daemon
// to act through): the adapter must say so with Chaos Mesh's own reason.
func TestChaosMeshAdapter(t *testing.T) {
	crds, manager := controllerManager(t)
	c := localtest.Start(t, local.Options{Name: "chaosmesh"})
	dyn := dynamic.NewForConfigOrDie(c.REST)
	target := chaos.Target{Kube: c.Kube, Dynamic: dyn}
	ns := c.Namespace(t, "chaosmesh")
	kill := &PodKill{Namespace: ns, Labels: map[string]string{"app": "web"}, Timeout: 2 * time.Second}

	t.Run("refused before the CRDs exist", func(t *testing.T) {
		_, err := chaos.Inject(t.Context(), chaos.NewTimeline(), kill, target)
		if err == nil || !strings.Contains(err.Error(), "Chaos Mesh is not installed") {
			t.Fatalf("err = %v", err)
		}
	})

	if err := applyDir(t.Context(), c.REST, crds); err != nil {
		t.Fatal(err)
	}
	// Discovery may lag behind the CRD's Established condition.
	localtest.Eventually(t, 10*time.Second, "discovery to serve chaos-mesh.org", func() bool { return kill.Available(target) == nil })

	t.Run("no controller: times out and leaves nothing", func(t *testing.T) {
		_, err := chaos.Inject(t.Context(), chaos.NewTimeline(), kill, target)
		if err == nil || !strings.Contains(err.Error(), "did not report AllInjected within 2s; is its controller-manager running?") {
			t.Fatalf("err = %v", err)
		}
		assertNoExperiments(t, dyn, ns, "podchaos")
	})

	startControllerManager(t, manager, c.Kubeconfig())

	t.Run("pod kill", func(t *testing.T) {
		victim := newPod(t, c, ns, "victim", "web")
		bystander := newPod(t, c, ns, "bystander", "db")
		kill := &PodKill{Namespace: ns, Labels: map[string]string{"app": "web"}, Timeout: 30 * time.Second}
		tl := chaos.NewTimeline()
		inj, err := chaos.Inject(t.Context(), tl, kill, target)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(inj.Target, ns+"/steadystate-") || len(tl.Injections()) != 1 {
			t.Errorf("injection %+v, timeline %v", inj, tl.Injections())
		}
		if _, err := c.Kube.CoreV1().Pods(ns).Get(t.Context(), victim, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("the selected pod %s is still there after Chaos Mesh reported it killed: %v", victim, err)
		}
		if _, err := c.Kube.CoreV1().Pods(ns).Get(t.Context(), bystander, metav1.GetOptions{}); err != nil {
			t.Errorf("a pod the selector does not select is gone: %v", err)
		}
		assertNoExperiments(t, dyn, ns, "podchaos")
	})

	t.Run("network partition: Chaos Mesh's reason, nothing left", func(t *testing.T) {
		newPod(t, c, ns, "web-0", "web")
		f := &NetworkPartition{Namespace: ns, Labels: map[string]string{"app": "web"}, TargetLabels: map[string]string{"app": "db"}, Duration: time.Minute, Timeout: 10 * time.Second}
		_, err := chaos.Inject(t.Context(), chaos.NewTimeline(), f, target)
		if err == nil || !strings.Contains(err.Error(), "Chaos Mesh says: ") || !strings.Contains(err.Error(), "pod not running") {
			t.Fatalf("err = %v, want Chaos Mesh's reason (pod not running)", err)
		}
		assertNoExperiments(t, dyn, ns, "networkchaos")
	})
}

// controllerManager finds the Chaos Mesh build: its CRDs folder and its
// binary.
func controllerManager(t *testing.T) (crds, binary string) {
	path, r := built(t, upstream.ChaosMesh)
	return filepath.Join(path, "crds"), filepath.Join(path, r.Binary)
}

// built finds the folder of an upstream release `make upstream-bins`
// builds. Without it the test is skipped saying how to build it, or fails
// where the run requires it (STEADYSTATE_REQUIRE_UPSTREAM=1, as make test
// sets).
func built(t *testing.T, name string) (string, upstream.Release) {
	dir := os.Getenv("UPSTREAM_DIR")
	if dir == "" {
		root, err := local.CacheRoot()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(root, "upstream")
	}
	r, ok := upstream.Lookup(name)
	if !ok {
		t.Fatalf("no upstream release %s in the catalog", name)
	}
	if _, ok := (upstream.Builder{Dir: dir}).Built(r); !ok {
		msg := fmt.Sprintf("%s is not built in %s: `make upstream-bins` builds it from the Go module proxy", r.Name, dir)
		if os.Getenv("STEADYSTATE_REQUIRE_UPSTREAM") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return (upstream.Builder{Dir: dir}).Path(r), r
}

// startControllerManager runs the controller-manager against the cluster
// until the test ends: no leader election, every port its own, and a
// self-signed pair for the webhook server it starts (the cluster has no
// webhook configuration pointing at it).
func startControllerManager(t *testing.T, binary, kubeconfig string) {
	certs := t.TempDir()
	ca, err := pki.NewCA("chaos-mesh-webhook")
	if err != nil {
		t.Fatal(err)
	}
	dns, ips := pki.Loopback()
	pair, err := ca.Issue(pki.Request{Subject: pkix.Name{CommonName: "chaos-mesh"}, DNSNames: dns, IPs: ips, Usage: x509.ExtKeyUsageServerAuth})
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"tls.crt": pair.CertPEM, "tls.key": pair.KeyPEM} {
		if err := os.WriteFile(filepath.Join(certs, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p, err := proc.Start(proc.Spec{Name: "chaos-controller-manager", Path: binary, LogPath: filepath.Join(t.TempDir(), "chaos-controller-manager.log"),
		Env: []string{"KUBECONFIG=" + kubeconfig, "CERTS_DIR=" + certs, "ENABLE_LEADER_ELECTION=false",
			"WEBHOOK_HOST=127.0.0.1", fmt.Sprintf("WEBHOOK_PORT=%d", freePort(t)), "METRICS_HOST=127.0.0.1", "METRICS_PORT=0"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Stop(5 * time.Second)
		if t.Failed() {
			t.Logf("chaos-controller-manager log:\n%s", proc.Tail(p.LogPath(), 40))
		}
	})
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// newPod makes a pod labelled app in ns. No node runs it: it stays
// Pending, which is enough for Chaos Mesh to select and kill it.
func newPod(t *testing.T, c *localtest.Cluster, ns, name, app string) string {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/app:v1"}}}}
	if _, err := c.Kube.CoreV1().Pods(ns).Create(t.Context(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return name
}

func assertNoExperiments(t *testing.T, dyn dynamic.Interface, ns, resource string) {
	t.Helper()
	list, err := dyn.Resource(GroupVersion.WithResource(resource)).Namespace(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 0 {
		t.Errorf("%d %s experiments left behind", len(list.Items), resource)
	}
}

// applyDir applies every YAML file of dir (Chaos Mesh's CRDs).
func applyDir(ctx context.Context, cfg *rest.Config, dir string) error {
	return fixtures.Apply(ctx, cfg, os.DirFS(dir), "*.yaml")
}
