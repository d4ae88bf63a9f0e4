package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
