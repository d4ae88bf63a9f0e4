package main

import (
	"os/exec"
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
			return
		}
	}
	t.Fatalf("make -n e2e runs no ginkgo over ./suites/...:\n%s", out)
}
