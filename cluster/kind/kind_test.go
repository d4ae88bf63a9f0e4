package kind

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := CheckConfig(filepath.Join("..", "..", "kind-config.yaml")); err != nil {
		t.Fatalf("the repository's kind-config.yaml: %v", err)
	}
	for _, tc := range []struct{ name, text, want string }{
		{"typo.yaml", "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nnodez: []\n", `unknown field "nodez"`},
		{"broken.yaml", "kind: Cluster\napiVersion: [\n", "does not parse"},
		{"other.yaml", "kind: Pod\napiVersion: v1\n", "expected kind Cluster"},
	} {
		err := CheckConfig(write(tc.name, tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	if err := CheckConfig(filepath.Join(dir, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: err = %v", err)
	}
}

// TestCreateRefusesBadInputBeforeStarting needs no Docker engine: each
// check fails before kind is asked to create anything, and Destroy then
// has nothing to delete.
func TestCreateRefusesBadInputBeforeStarting(t *testing.T) {
	p := NewProvider(Options{Name: "steadystate-test", ConfigFile: filepath.Join(t.TempDir(), "none.yaml")})
	if _, err := p.Create(context.Background()); err == nil || !strings.Contains(err.Error(), "none.yaml") {
		t.Fatalf("err = %v", err)
	}
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	p = NewProvider(Options{Name: "steadystate-test", ConfigFile: filepath.Join("..", "..", "kind-config.yaml")})
	_, err := p.Create(context.Background())
	if err == nil || !strings.Contains(err.Error(), "needs a Docker engine and none answers") && !strings.Contains(err.Error(), "no docker command") {
		t.Fatalf("err = %v", err)
	}
	if p.attempted {
		t.Fatal("a refused create must leave nothing to delete")
	}
	if err := p.Destroy(context.Background()); err != nil {
		t.Fatal(err)
	}
}
