package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestE2ERunsEverySuite: make e2e runs Ginkgo with --keep-going, so a
// suite that fails does not keep the suites after it from running and
// being judged.
func TestE2ERunsEverySuite(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make here")
	}
	// -n prints the recipe; PROVIDER=existing needs no binaries built.
	cmd := exec.Command("make", "-n", "e2e", "PROVIDER=existing")
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n e2e: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "ginkgo") && strings.Contains(line, "./suites/...") {
			if !strings.Contains(line, "--keep-going") {
				t.Errorf("make e2e runs the suites without --keep-going: a failing suite stops the rest\n%s", line)
			}
			checkHarnessTestsSkipped(t, line)
			return
		}
	}
	t.Fatalf("make -n e2e runs no ginkgo over ./suites/...:\n%s", out)
}

// checkHarnessTestsSkipped: a package under suites/ that runs Ginkgo specs
// (RunSpecs) but is not a suite (no *_suite_test.go) tests the harness
// with specs that fail on purpose; make e2e must skip it, or its failures
// are counted as errors of the subject's run (a controller-runtime manager
// through make e2e was NOT PASSED with two errors of lost-events judging).
func checkHarnessTestsSkipped(t *testing.T, line string) {
	t.Helper()
	skipped := map[string]bool{}
	if m := regexp.MustCompile(`--skip-package=(\S+)`).FindStringSubmatch(line); m != nil {
		for _, p := range strings.Split(m[1], ",") {
			skipped[p] = true
		}
	}
	err := filepath.WalkDir("../../suites", func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		suite, _ := filepath.Glob(filepath.Join(path, "*_suite_test.go"))
		tests, _ := filepath.Glob(filepath.Join(path, "*_test.go"))
		if len(suite) > 0 {
			return nil
		}
		for _, f := range tests {
			data, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			if strings.Contains(string(data), "RunSpecs(") && !skipped[filepath.Base(path)] {
				t.Errorf("make e2e runs %s, whose Ginkgo specs test the harness (no *_suite_test.go): add it to E2E_SKIP_PACKAGES", path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
