package existing

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const twoContexts = `apiVersion: v1
kind: Config
clusters:
- name: a
  cluster: {server: "https://127.0.0.1:6443"}
users:
- name: a
  user: {token: t}
contexts:
- name: alpha
  context: {cluster: a, user: a}
- name: beta
  context: {cluster: a, user: a}
current-context: alpha
`

func writeFile(t *testing.T, content string) string {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoad(t *testing.T) {
	good := writeFile(t, twoContexts)
	cases := []struct {
		name, kubeconfig, context, wantErr string
	}{
		{"current context", good, "", ""},
		{"named context", good, "beta", ""},
		{"missing context", good, "gamma", `context "gamma" does not exist in kubeconfig ` + good},
		{"missing file", "/nonexistent/kubeconfig", "", "kubeconfig /nonexistent/kubeconfig: no such file or directory"},
		{"not yaml", writeFile(t, "clusters: [::"), "", "does not parse"},
		{"no current context", writeFile(t, strings.Replace(twoContexts, "current-context: alpha", "", 1)), "", "has no current context"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Load(tc.kubeconfig, tc.context)
			if tc.wantErr == "" {
				if err != nil || cfg.Host != "https://127.0.0.1:6443" {
					t.Fatalf("Load = %v, %v", cfg, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Load error = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// Create refuses a context that does not exist, and otherwise returns
// once the API server answers /readyz, however late; Destroy leaves the
// cluster alone.
func TestProviderCreateValidatesAndDestroyKeepsTheCluster(t *testing.T) {
	var calls atomic.Int32
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" || calls.Add(1) < 3 {
			http.Error(w, "not yet", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, "ok")
	}))
	defer api.Close()
	kubeconfig := strings.ReplaceAll(twoContexts, "https://127.0.0.1:6443", api.URL)
	p := NewProvider(writeFile(t, kubeconfig), "nope")
	if _, err := p.Create(t.Context()); err == nil {
		t.Fatal("Create accepted a context that does not exist")
	}
	p = NewProvider(writeFile(t, kubeconfig), "beta")
	path, err := p.Create(t.Context())
	if err != nil || path == "" || p.KubernetesRestConfig() == nil || calls.Load() != 3 {
		t.Fatalf("Create = %q, %v after %d calls of /readyz, want the third to answer", path, err, calls.Load())
	}
	if err := p.Destroy(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// An API server that never gets ready is named when the wait ends.
func TestCreateNamesAnAPIServerThatIsNotReady(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "etcd not ready", http.StatusServiceUnavailable)
	}))
	defer api.Close()
	p := NewProvider(writeFile(t, strings.ReplaceAll(twoContexts, "https://127.0.0.1:6443", api.URL)), "")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	if _, err := p.Create(ctx); err == nil || !strings.Contains(err.Error(), "the API server at "+api.URL+" did not answer /readyz") {
		t.Fatalf("Create = %v, want it to name the API server that is not ready", err)
	}
}

// Outside a pod, with no kubeconfig anywhere, Create says what to pass
// rather than inventing a cluster.
func TestCreateOutsideAPodWithNoKubeconfig(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	p := NewProvider("", "")
	if _, err := p.Create(t.Context()); err == nil || !strings.Contains(err.Error(), "has no current context") {
		t.Fatalf("Create = %v, want the no-current-context error", err)
	}
	if p.written != "" {
		t.Errorf("Create wrote an in-cluster kubeconfig %s outside a pod", p.written)
	}
}
