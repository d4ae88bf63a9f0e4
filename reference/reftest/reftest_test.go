package reftest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/steadystate-dev/steadystate/chaos/runner"
	"github.com/steadystate-dev/steadystate/internal/proc"
)

// TestFailedTestKeepsTheSuitesEvidence: a failed directed test leaves what
// a failed spec leaves, evidence.json and history.txt from package
// evidence, next to each replica's log.
func TestFailedTestKeepsTheSuitesEvidence(t *testing.T) {
	root := t.TempDir()
	t.Setenv("ARTIFACTS", root)
	start := time.Now()
	s, err := runner.Start(runner.Options{Command: "quiet", Replicas: 1, Upstream: &rest.Config{Host: "https://127.0.0.1:1"}, Dir: t.TempDir(),
		Spec: func(runner.ReplicaEnv) (proc.Spec, error) {
			return proc.Spec{Path: "/bin/sh", Args: []string{"-c", "echo started; exec sleep 30"}}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	Eventually(t, 10*time.Second, "the replica to log", func() bool { return s.LogContains(0, "started") })
	keepEvidence(t, s, start)
	dir := filepath.Join(root, t.Name())
	for _, f := range []string{"evidence.json", "history.txt", "quiet-0.log"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s was not kept: %v", f, err)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "evidence.json")); !strings.Contains(string(data), "quiet-0") {
		t.Errorf("evidence.json does not hold replica quiet-0's proxy:\n%s", data)
	}
}
