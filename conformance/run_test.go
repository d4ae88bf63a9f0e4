package conformance

import (
	"os"
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
  steadyState:
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
