package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/internal/config"
	"github.com/steadystate-dev/steadystate/subjectfile"
)

// init on a kubebuilder project builds its manager and writes a subject
// file that loads as it is; run again, it refuses to overwrite it.
func TestInitDraftsALoadableSubjectFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "guestbook")
	if err := os.CopyFS(dir, os.DirFS("../../scaffold/testdata/project")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "steadystate.yaml")
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), config.Settings{}, []string{"init", "--out", out, dir}, &stdout, &stderr); err != nil {
		t.Fatalf("init: %v\n%s", err, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "bin", "manager")); err != nil {
		t.Errorf("the manager was not built: %v", err)
	}
	if !strings.Contains(stderr.String(), "init: built the manager in") {
		t.Errorf("no progress on the build: %q", stderr.String())
	}
	f, err := subjectfile.Load(out, subjectfile.Options{})
	if err != nil {
		t.Fatalf("the draft does not load: %v", err)
	}
	if f.Capabilities.ReconciledObjects == nil || f.Name != "guestbook" {
		t.Errorf("the draft: name %q, reconciledObjects %v", f.Name, f.Capabilities.ReconciledObjects)
	}
	err = run(t.Context(), config.Settings{}, []string{"init", "--out", out, "--no-build", dir}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "never overwrites") {
		t.Errorf("init over an existing file: %v", err)
	}
}
