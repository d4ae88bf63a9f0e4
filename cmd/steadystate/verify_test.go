package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/reports/bundle"
)

// conformRun is a results folder as conform leaves it, from recorded
// files: the leader suite on a bug mode, with its failing spec's evidence.
func conformRun(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for to, from := range map[string]string{
		"leader/subject-correct/1/report.json":            "../../reports/testdata/leader-run/leader/ignore-lost-lease/1/report.json",
		"leader/subject-correct/1/follower/evidence.json": "../../suites/judge/testdata/leader-start-on-shutdown-follower-shutdown.json",
		"subject/subject.yaml":                            "../../fixtures/subjects/replicaset.yaml",
	} {
		if err := copyFile(from, filepath.Join(dir, filepath.FromSlash(to))); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func writeBundle(t *testing.T, passed bool) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "conformance.tar.gz")
	m := bundle.Manifest{Created: time.Now(), Steadystate: "test", Provider: "local", Kubernetes: "v1.36.3", Subject: "subject/subject.yaml", Passed: passed}
	if _, err := bundle.Write(out, conformRun(t), m, nil); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestVerifyAgreesWithTheBundle(t *testing.T) {
	out, err := command(t, t.TempDir(), "verify", writeBundle(t, false)).CombinedOutput()
	for _, want := range []string{"every sum matches the manifest", "BROKEN", "leader/only-holder-writes", "0 differ", "its verdicts stand: the subject did not pass"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if err != nil {
		t.Errorf("verify: %v\n%s", err, out)
	}
}

func TestVerifyRefuses(t *testing.T) {
	tampered := writeBundle(t, false)
	data, _ := os.ReadFile(tampered)
	truncated := filepath.Join(t.TempDir(), "truncated.tar.gz")
	os.WriteFile(truncated, data[:len(data)*2/3], 0o644)
	for name, tc := range map[string]struct{ path, want string }{
		"a bundle that claims a pass": {writeBundle(t, true), "the manifest says passed=true, its reports say passed=false"},
		"a truncated bundle":          {truncated, "truncated.tar.gz: truncated or corrupt"},
		"no bundle":                   {"/nonexistent/b.tar.gz", "no such file"},
	} {
		out, err := command(t, t.TempDir(), "verify", tc.path).CombinedOutput()
		if err == nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("%s: err=%v, want %q in:\n%s", name, err, tc.want, out)
		}
	}
}
