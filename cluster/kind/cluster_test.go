package kind

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestClusterLifecycle creates a real kind cluster: it needs a Docker
// engine and the node image, which `make kind-test` provides (it sets
// STEADYSTATE_REQUIRE_KIND=1); without them it is skipped, saying so.
func TestClusterLifecycle(t *testing.T) {
	if os.Getenv("STEADYSTATE_REQUIRE_KIND") != "1" {
		t.Skip("needs a Docker engine and the kind node image: run `make kind-test`")
	}
	ctx := context.Background()
	config, _ := filepath.Abs(filepath.Join("..", "..", "kind-config.yaml"))
	o := Options{Name: "steadystate-lifecycle", Image: os.Getenv("KIND_NODE_IMAGE"), ConfigFile: config, Progress: os.Stderr}
	p := NewProvider(o)
	t.Cleanup(func() {
		if err := p.Destroy(ctx); err != nil {
			t.Error(err)
		}
	})
	kubeconfig, err := p.Create(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(p.KubernetesRestConfig())
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil || len(nodes.Items) != 1 || !ready(nodes.Items[0]) {
		t.Fatalf("nodes = %v, %v; want one Ready node", nodes, err)
	}
	if _, err := os.Stat(kubeconfig); err != nil {
		t.Fatal(err)
	}

	// A second create under the same name is refused and leaves the
	// first cluster alone.
	if _, err := NewProvider(o).Create(ctx); err == nil || !strings.Contains(err.Error(), `a kind cluster named "steadystate-lifecycle" already exists`) {
		t.Fatalf("second create: %v", err)
	}
	if err := p.WaitForControlPlane(ctx, nil); err != nil {
		t.Fatalf("the first cluster after a refused second create: %v", err)
	}

	// An image built here reaches the node's containerd.
	ctxDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(ctxDir, "Dockerfile"), []byte("FROM scratch\nCOPY Dockerfile /\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("docker", "build", "-q", "-t", "steadystate/kind-load-test:1", ctxDir).CombinedOutput(); err != nil {
		t.Fatalf("docker build: %v: %s", err, out)
	}
	if err := p.LoadImage(ctx, "steadystate/kind-load-test:1"); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("docker", "exec", o.Name+"-control-plane", "crictl", "images").CombinedOutput(); err != nil || !strings.Contains(string(out), "steadystate/kind-load-test") {
		t.Fatalf("crictl images after LoadImage: %v: %s", err, out)
	}

	logs := t.TempDir()
	if err := p.ExportLogs(ctx, logs); err != nil {
		t.Fatal(err)
	}
	if matches, _ := filepath.Glob(filepath.Join(logs, "*", "kubelet.log")); len(matches) == 0 {
		t.Errorf("exported logs hold no kubelet.log: %v", matches)
	}

	if err := p.Destroy(ctx); err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command("docker", "ps", "-a", "--filter", "label=io.x-k8s.kind.cluster=steadystate-lifecycle", "-q").Output()
	if len(strings.TrimSpace(string(out))) != 0 {
		t.Fatalf("containers left after Destroy: %s", out)
	}
	if _, err := os.Stat(kubeconfig); !os.IsNotExist(err) {
		t.Fatalf("kubeconfig left after Destroy: %v", err)
	}
}

func ready(n corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// TestInterruptedCreateLeavesNothing cancels a create halfway: the cluster
// kind was making is deleted once kind's create returns.
func TestInterruptedCreateLeavesNothing(t *testing.T) {
	if os.Getenv("STEADYSTATE_REQUIRE_KIND") != "1" {
		t.Skip("needs a Docker engine and the kind node image: run `make kind-test`")
	}
	config, _ := filepath.Abs(filepath.Join("..", "..", "kind-config.yaml"))
	p := NewProvider(Options{Name: "steadystate-interrupted", Image: os.Getenv("KIND_NODE_IMAGE"), ConfigFile: config, Progress: os.Stderr})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if _, err := p.Create(ctx); err == nil || !strings.Contains(err.Error(), "context deadline exceeded") {
		t.Fatalf("Create = %v, want it interrupted", err)
	}
	out, _ := exec.Command("docker", "ps", "-a", "--filter", "label=io.x-k8s.kind.cluster=steadystate-interrupted", "-q").Output()
	if len(strings.TrimSpace(string(out))) != 0 {
		t.Fatalf("containers left after an interrupted create: %s", out)
	}
}
