package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/internal/config"
	"github.com/steadystate-dev/steadystate/suites/e2e"
)

// TestE2ERunsEverySuite: make e2e runs every suite from the one
// steadystate binary it builds (`steadystate e2e`, which runs each suite
// whichever failed before it: see suites/e2e), compiles no test package
// with ginkgo, gives the suites the refctl it built (else each suite builds
// its own), and passes the Ginkgo and suite flags through.
func TestE2ERunsEverySuite(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make here")
	}
	// -n prints the recipe; PROVIDER=existing needs no binaries built.
	cmd := exec.Command("make", "-n", "e2e", "PROVIDER=existing", "GINKGO_FLAGS=--label-filter=x -v", "SUITE_FLAGS=-steadystate.window=2s")
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n e2e: %v\n%s", err, out)
	}
	recipe := string(out)
	root, err := filepath.Abs(cmd.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(recipe, "go build -buildvcs=auto -o bin/ ./cmd/steadystate ./cmd/refctl") {
		t.Errorf("make e2e does not build bin/steadystate and bin/refctl in one go build, stamped with their commit:\n%s", recipe)
	}
	if strings.Contains(recipe, "ginkgo") || strings.Contains(recipe, "go run") {
		t.Errorf("make e2e compiles more than bin/steadystate (ginkgo or go run):\n%s", recipe)
	}
	i := strings.Index(recipe, "bin/steadystate e2e ")
	if i < 0 {
		t.Fatalf("make -n e2e runs no bin/steadystate e2e:\n%s", recipe)
	}
	line, after, _ := strings.Cut(recipe[i:], "\n")
	if want := "--label-filter=x -v -- -steadystate.refctl=" + filepath.Join(root, "bin", "refctl") + " -steadystate.window=2s "; !strings.Contains(line, want) {
		t.Errorf("make e2e does not pass GINKGO_FLAGS and SUITE_FLAGS as %q:\n%s", want, line)
	}
	for _, then := range []string{"bin/steadystate junit", "bin/steadystate html", "bin/steadystate report"} {
		if !strings.Contains(after, then) {
			t.Errorf("make e2e does not run %q after the suites:\n%s", then, recipe)
		}
	}
}

// TestE2EFlags: e2e refuses a flag of the ginkgo command it does not run
// and a suite flag the suites do not take, as usage errors, before any
// suite starts.
func TestE2EFlags(t *testing.T) {
	for _, args := range [][]string{{"-p"}, {"--procs=2"}, {"--label-filter=x", "--", "-steadystate.windo=1s"}, {"leader"}} {
		err := e2e.Command(t.Context(), config.FromEnv(), args, nil, nil)
		if !errors.Is(err, errUsage) {
			t.Errorf("e2e %q: %v, want a usage error", args, err)
		}
	}
}

// TestZooReproNamesTheFindings: make zoo-repro with no FINDING, an unknown
// one or two stops at once (exit 2, before building anything) with one
// line naming the kept findings; a known one replays its schedule through
// steadystate zoo repro.
func TestZooReproNamesTheFindings(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make here")
	}
	kept, err := filepath.Glob("../../fixtures/zoo/findings/*.yaml")
	if err != nil || len(kept) == 0 {
		t.Fatalf("no kept finding: %v", err)
	}
	var names []string
	for _, f := range kept {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".yaml"))
	}
	for _, finding := range []string{"", "nope", "stuck-rollout nope"} {
		cmd := exec.Command("make", "--no-print-directory", "-n", "zoo-repro", "FINDING="+finding)
		cmd.Dir = "../.."
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 {
			t.Errorf("make zoo-repro FINDING=%q: %v, want exit status 2\n%s", finding, err, out)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if want := `FINDING="` + finding + `" is not a finding of fixtures/zoo/findings; give one of: ` + strings.Join(names, " "); len(lines) != 1 || !strings.Contains(lines[0], want) {
			t.Errorf("make zoo-repro FINDING=%q said %q, want one line with %q", finding, out, want)
		}
	}
	cmd := exec.Command("make", "--no-print-directory", "-n", "zoo-repro", "FINDING=stuck-rollout", "LOCAL_NODES=")
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n zoo-repro FINDING=stuck-rollout: %v\n%s", err, out)
	}
	if want := "bin/steadystate zoo repro --finding 'stuck-rollout' --findings 'fixtures/zoo/findings'"; !strings.Contains(string(out), want) {
		t.Errorf("make zoo-repro does not run %q:\n%s", want, out)
	}
	if !strings.Contains(string(out), "-nodes 'on'") {
		t.Errorf("make zoo-repro does not run with simulated nodes by default:\n%s", out)
	}
	// A finding on an operator builds the operators first; one on a
	// Kubernetes controller does not.
	if strings.Contains(string(out), "zoo-bins.sh") {
		t.Errorf("make zoo-repro FINDING=stuck-rollout builds the operators:\n%s", out)
	}
	cmd = exec.Command("make", "--no-print-directory", "-n", "zoo-repro", "FINDING=cert-manager-reissue")
	cmd.Dir = "../.."
	if out, err = cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "hack/zoo-bins.sh") {
		t.Errorf("make -n zoo-repro FINDING=cert-manager-reissue does not build the operators (%v):\n%s", err, out)
	}
}
