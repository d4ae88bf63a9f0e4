package conformance

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/cluster"
	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/internal/config"
	"github.com/steadystate-dev/steadystate/subjectfile"
)

// The subject file the bundle keeps is its redacted copy: no Secret's
// value and no secret-looking environment value, still a subject file.
func TestBundleKeepsTheSubjectFileRedacted(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "subject.yaml")
	if err := os.WriteFile(path, []byte(`apiVersion: steadystate.dev/v1alpha3
kind: Subject
name: kept
run:
  command: [/bin/true, "--kubeconfig={{.Kubeconfig}}"]
  env: {DB_PASSWORD: env-planted-value, LOG_LEVEL: debug}
capabilities:
  reconciledObjects:
    objects:
      - {apiVersion: v1, kind: Secret, metadata: {name: db}, stringData: {password: secret-planted-value}}
    changes:
      - patch: {object: {kind: Secret, name: db}, merge: {stringData: {password: patch-planted-value}}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := subjectfile.Load(path, subjectfile.Options{FromImage: true})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "bundle", "subject", "subject.yaml")
	if err := writeRedacted(f, out); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "planted") {
		t.Errorf("the kept subject file holds a secret:\n%s", data)
	}
	kept, err := subjectfile.Load(out, subjectfile.Options{FromImage: true})
	if err != nil {
		t.Fatalf("the kept copy is not a subject file: %v\n%s", err, data)
	}
	if kept.Run.Env["DB_PASSWORD"] != subjectfile.RedactedValue || kept.Run.Env["LOG_LEVEL"] != "debug" {
		t.Errorf("the kept copy's run.env is %v", kept.Run.Env)
	}
}

// The commit a bundle names is steadystate's own, not the commit of the
// checkout the command runs in (a subject's, say).
func TestSteadystateVersionIgnoresTheWorkingFolder(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the version's fallback to the checkout is not tested")
	}
	other := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "other"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", other}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	out, err := exec.Command("git", "-C", other, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(other)
	if v, c := SteadystateVersion(), strings.TrimSpace(string(out)); strings.Contains(v, c) {
		t.Errorf("SteadystateVersion() = %q names the working folder's commit %s", v, c)
	}
}

// A subject run through a wrapper (sh -c "... exec manager") names the
// manager it runs, by digest, not only the shell.
func TestSubjectVersionsSeeThroughAWrapper(t *testing.T) {
	dir := t.TempDir()
	manager := filepath.Join(dir, "manager")
	if err := os.WriteFile(manager, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "subject.yaml")
	if err := os.WriteFile(path, []byte(`apiVersion: steadystate.dev/v1alpha3
kind: Subject
name: wrapped
run:
  command:
    - /bin/sh
    - -c
    - |
      set -e
      exec `+manager+` --config={{.Dir}}/config.yaml
capabilities:
  reconciledObjects:
    objects:
      - {apiVersion: v1, kind: ConfigMap, metadata: {name: app}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := subjectfile.Load(path, subjectfile.Options{FromImage: true})
	if err != nil {
		t.Fatal(err)
	}
	v := subjectVersions(f)
	if got := v["run.command program "+manager]; !strings.HasPrefix(got, manager+" sha256:") {
		t.Errorf("the wrapped manager is not named: %v", v)
	}
	if got := v["run.command"]; !strings.HasPrefix(got, "/bin/sh sha256:") {
		t.Errorf("the wrapper is not named: %v", v)
	}
}

// The zoo's Deployment controller needs nodes: it runs on a local cluster
// with simulated nodes when LOCAL_NODES is unset, and is refused as input
// when LOCAL_NODES turns them off (else its Pending pods would be reported
// as the controller's findings); the bundle names the nodes.
func TestLoadGivesASubjectThatNeedsNodesSimulatedOnes(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "kube-controller-manager"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	load := func(nodes string) (Run, error) {
		t.Helper()
		c, err := New(config.From(func(k string) string {
			return map[string]string{"KUBE_BIN_DIR": dir, "ARTIFACTS": dir, "LOCAL_NODES": nodes}[k]
		}), filepath.Join("..", "..", "fixtures", "zoo", "deployment.yaml"), "", cluster.Local)
		if err != nil {
			t.Fatal(err)
		}
		return c, c.Load(context.Background(), io.Discard)
	}
	c, err := load("")
	if err != nil || !slices.Contains(c.Matrix.Env, "LOCAL_NODES=on") || !strings.HasSuffix(c.Kubernetes, ", 2 simulated nodes") {
		t.Errorf("LOCAL_NODES unset: err %v, the suites' environment %q, the manifest's Kubernetes %q; want LOCAL_NODES=on and the 2 nodes named", err, c.Matrix.Env, c.Kubernetes)
	}
	c, err = load("off")
	if !errors.Is(err, cli.ErrInput) || !strings.Contains(err.Error(), "needs nodes that run its pods (run.needsNodes)") {
		t.Errorf("LOCAL_NODES=off: err %v, want input refused", err)
	}
	if c, err = load("5"); err != nil || slices.Contains(c.Matrix.Env, "LOCAL_NODES=on") || !strings.HasSuffix(c.Kubernetes, ", 5 simulated nodes") {
		t.Errorf("LOCAL_NODES=5: err %v, the suites' environment %q, the manifest's Kubernetes %q; want it left to LOCAL_NODES, the 5 nodes named", err, c.Matrix.Env, c.Kubernetes)
	}
}

// A subject file that does not say it needs nodes, but whose objects
// make pods, is warned of on a local cluster without nodes, and not when
// LOCAL_NODES gives some.
func TestLoadWarnsOfPodsThatWouldStayPending(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "subject.yaml")
	if err := os.WriteFile(path, []byte("apiVersion: steadystate.dev/v1alpha3\nkind: Subject\nname: web\nrun: {command: [/bin/true]}\n"+
		"capabilities:\n  reconciledObjects:\n    objects:\n    - {apiVersion: apps/v1, kind: Deployment, metadata: {name: web}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for nodes, want := range map[string]bool{"": true, "off": true, "on": false} {
		c, err := New(config.From(func(k string) string {
			return map[string]string{"KUBE_BIN_DIR": dir, "ARTIFACTS": dir, "LOCAL_NODES": nodes}[k]
		}), path, "", cluster.Local)
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		if err := c.Load(context.Background(), &stderr); err != nil {
			t.Fatalf("LOCAL_NODES=%q: %v", nodes, err)
		}
		if got := strings.Contains(stderr.String(), "warning: Deployment/web makes pods, which stay Pending"); got != want {
			t.Errorf("LOCAL_NODES=%q: warned %v, want %v: %q", nodes, got, want, stderr.String())
		}
	}
}
