package shared

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/e2e-framework/support"
)

// fakeProvider writes a kubeconfig of server, or fails, and counts its
// teardowns.
type fakeProvider struct {
	support.E2EClusterProvider
	dir, server string
	fail        error
	destroyed   int
}

// newFake is a provider whose cluster is an API server that answers
// /readyz, as a guest waits for.
func newFake(t *testing.T) *fakeProvider {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	t.Cleanup(srv.Close)
	return &fakeProvider{dir: t.TempDir(), server: srv.URL}
}

func (f *fakeProvider) Create(context.Context, ...string) (string, error) {
	if f.fail != nil {
		return "", f.fail
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["c"] = &clientcmdapi.Cluster{Server: f.server, InsecureSkipTLSVerify: true}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: "t"}
	cfg.Contexts["owner-context"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "admin"}
	path := filepath.Join(f.dir, "owner.kubeconfig")
	return path, clientcmd.WriteToFile(*cfg, path)
}

func (f *fakeProvider) GetKubectlContext() string { return "owner-context" }

func (f *fakeProvider) Destroy(context.Context) error { f.destroyed++; return nil }

func TestGuestUsesTheOwnersCluster(t *testing.T) {
	dir := t.TempDir()
	inner := newFake(t)
	owner := NewOwner(inner, dir, nil)
	guest := NewGuest(dir)
	got := make(chan error, 1)
	go func() {
		_, err := guest.Create(t.Context())
		got <- err
	}()
	if _, err := owner.Create(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("the guest: %v", err)
	}
	if guest.KubernetesRestConfig() == nil || guest.KubernetesRestConfig().Host != inner.server {
		t.Fatalf("the guest's client configuration %+v: want the owner's server", guest.KubernetesRestConfig())
	}
	cfg, err := clientcmd.LoadFromFile(guest.GetKubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CurrentContext != "owner-context" {
		t.Errorf("the shared kubeconfig's current context is %q: want the owner's, owner-context", cfg.CurrentContext)
	}

	// The guest is still there (this process is alive): the owner
	// waits, then tears down once it left.
	destroyed := make(chan error, 1)
	go func() { destroyed <- owner.Destroy(t.Context()) }()
	select {
	case err := <-destroyed:
		t.Fatalf("the owner tore the cluster down (%v) with its guest still there", err)
	case <-time.After(5 * poll):
	}
	if inner.destroyed != 0 {
		t.Fatal("the cluster was torn down with a guest still there")
	}
	if err := guest.Destroy(t.Context()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-destroyed:
		if err != nil || inner.destroyed != 1 {
			t.Fatalf("the owner's teardown: %v, %d teardown(s): want one, no error", err, inner.destroyed)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the owner did not tear the cluster down once its guest left")
	}

	// A guest that comes after: refused.
	if _, err := NewGuest(dir).Create(t.Context()); !errors.Is(err, ErrClosed) {
		t.Errorf("a guest after the owner closed the cluster: %v, want ErrClosed", err)
	}
}

func TestGuestLearnsWhyTheClusterDidNotStart(t *testing.T) {
	dir := t.TempDir()
	owner := NewOwner(&fakeProvider{dir: t.TempDir(), fail: errors.New("etcd did not start")}, dir, nil)
	if _, err := owner.Create(t.Context()); err == nil {
		t.Fatal("the owner's Create succeeded with a failing provider")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, err := NewGuest(dir).Create(ctx)
	if err == nil || !strings.Contains(err.Error(), "etcd did not start") {
		t.Errorf("the guest's Create: %v, want the owner's reason", err)
	}
}

func TestOwnerDoesNotWaitForAGuestThatIsGone(t *testing.T) {
	dir := t.TempDir()
	inner := newFake(t)
	owner := NewOwner(inner, dir, nil)
	if _, err := owner.Create(t.Context()); err != nil {
		t.Fatal(err)
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	g := NewGuest(dir)
	g.pid = gone.Process.Pid
	if _, err := g.Create(t.Context()); err != nil {
		t.Fatal(err)
	}
	owner.wait = 10 * time.Second
	if err := owner.Destroy(t.Context()); err != nil || inner.destroyed != 1 {
		t.Fatalf("the owner's teardown with its guest's process gone: %v, %d teardown(s)", err, inner.destroyed)
	}
}

func TestOwnerTearsDownAfterItsWait(t *testing.T) {
	dir := t.TempDir()
	inner := newFake(t)
	owner := NewOwner(inner, dir, nil)
	if _, err := owner.Create(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, guestPrefix+"1"), nil, 0o644); err != nil { // init: alive, never leaves
		t.Fatal(err)
	}
	owner.wait = 3 * poll
	err := owner.Destroy(t.Context())
	if err == nil || !strings.Contains(err.Error(), "still there") || inner.destroyed != 1 {
		t.Errorf("the owner's teardown past its wait: %v, %d teardown(s): want the cluster torn down and the guest named", err, inner.destroyed)
	}
}
