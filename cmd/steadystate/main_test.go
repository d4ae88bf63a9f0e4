package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/cluster/local/localtest"
	"github.com/steadystate-dev/steadystate/cluster/standing"
)

// binary is the steadystate command built once for these tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "steadystate-cmd-test-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "steadystate")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		panic("build steadystate: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// command runs steadystate with a private state folder.
func command(t *testing.T, stateDir string, args ...string) *exec.Cmd {
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "STEADYSTATE_STATE_DIR="+stateDir, "ARTIFACTS="+t.TempDir())
	return cmd
}

// startOrFail starts cmd and kills it when the test ends if it still runs.
func startOrFail(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			if err := cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
				t.Errorf("kill %s: %v", cmd, err)
			}
			_ = cmd.Wait() // reaps it; its error is only the kill's
		}
	})
}

// upCluster starts `cluster up` and waits until its state file appears.
func upCluster(t *testing.T, stateDir, name string) (*exec.Cmd, standing.State, *bytes.Buffer) {
	t.Helper()
	cmd := command(t, stateDir, "cluster", "up", "--name", name)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	startOrFail(t, cmd)
	path := filepath.Join(stateDir, name+".json")
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if data, err := os.ReadFile(path); err == nil {
			var s standing.State
			if err := json.Unmarshal(data, &s); err != nil {
				t.Fatal(err)
			}
			return cmd, s, &stdout
		}
		if time.Now().After(deadline) {
			t.Fatalf("cluster up did not become ready; stderr:\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitGone waits until every component has exited.
func waitGone(t *testing.T, components map[string]int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for name, pid := range components {
		for syscall.Kill(pid, 0) != syscall.ESRCH {
			if time.Now().After(deadline) {
				t.Fatalf("%s (pid %d) still runs", name, pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func TestUpStatusDown(t *testing.T) {
	localtest.RequireBinaries(t)
	stateDir := t.TempDir()
	up, s, stdout := upCluster(t, stateDir, "cli")
	if len(s.Components) != 3 {
		t.Errorf("state lists components %v, want etcd, kube-apiserver, kube-controller-manager", s.Components)
	}
	out, err := command(t, stateDir, "cluster", "status", "--name", "cli").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "export KUBECONFIG="+s.Kubeconfig) {
		t.Errorf("status: err=%v, output:\n%s", err, out)
	}
	if !strings.Contains(stdout.String(), "export KUBECONFIG="+s.Kubeconfig) {
		t.Errorf("up did not print the export line; stdout:\n%s", stdout.String())
	}
	out, err = command(t, stateDir, "cluster", "down", "--name", "cli").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "cluster cli stopped") {
		t.Fatalf("down: err=%v, output:\n%s", err, out)
	}
	if err := up.Wait(); err != nil {
		t.Errorf("cluster up exited with %v after down", err)
	}
	waitGone(t, s.Components)
	if _, err := os.Stat(filepath.Dir(s.Kubeconfig)); !os.IsNotExist(err) {
		t.Errorf("temporary folder %s survived down", filepath.Dir(s.Kubeconfig))
	}
	out, err = command(t, stateDir, "cluster", "status", "--name", "cli").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "not up") {
		t.Errorf("status after down: err=%v, output:\n%s", err, out)
	}
}

func TestCtrlCStopsTheCluster(t *testing.T) {
	localtest.RequireBinaries(t)
	up, s, _ := upCluster(t, t.TempDir(), "interrupt")
	if err := up.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := up.Wait(); err != nil {
		t.Errorf("cluster up exited with %v on Ctrl-C", err)
	}
	waitGone(t, s.Components)
	if _, err := os.Stat(filepath.Dir(s.Kubeconfig)); !os.IsNotExist(err) {
		t.Errorf("temporary folder %s survived Ctrl-C", filepath.Dir(s.Kubeconfig))
	}
}

func TestKilledHarnessTakesItsProcessesWithIt(t *testing.T) {
	localtest.RequireBinaries(t)
	up, s, _ := upCluster(t, t.TempDir(), "killed")
	if err := up.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = up.Wait() // reaps it; its error is only the kill's
	// No deferred cleanup ran; the parent-death signal must end them.
	waitGone(t, s.Components)
}

// Input refused before anything ran exits 2, with one line naming what is
// wrong (and the usage after a usage mistake); input that is no report
// judges nothing, and exits 3.
func TestBadInputGetsOneClearLine(t *testing.T) {
	// The built-in ReplicaSet subject file names kube-controller-manager.
	fakeBins := t.TempDir()
	if err := os.WriteFile(filepath.Join(fakeBins, "kube-controller-manager"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	kubeBins := []string{"KUBE_BIN_DIR=" + fakeBins}
	cases := []struct {
		args     []string
		env      []string
		code     int
		contains string
	}{
		{[]string{"frobnicate"}, nil, 2, `unknown command "frobnicate"`},
		{[]string{"frobnicate", "-h"}, nil, 2, `unknown command "frobnicate"`},
		{[]string{"cluster"}, nil, 2, "cluster needs up, down or status"},
		{[]string{"cluster", "up", "--bogus"}, nil, 2, "flag provided but not defined: -bogus"},
		{[]string{"cluster", "up"}, []string{"KUBE_BIN_DIR=/nonexistent/bins"}, 2, "KUBE_BIN_DIR=/nonexistent/bins is not a folder"},
		{[]string{"cluster", "up"}, []string{"KUBE_BIN_DIR=", "KUBE_VERSION=banana"}, 2, `KUBE_VERSION="banana" is not a Kubernetes release version`},
		{[]string{"cluster", "up"}, []string{"PROVIDER=existing"}, 2, "starts local clusters only"},
		{[]string{"report", "/nonexistent/junit.xml"}, nil, 2, "read report"},
		{[]string{"junit", "report.json"}, nil, 2, "junit takes a Ginkgo JSON report (report.json) and the JUnit file to write"},
		{[]string{"junit", "/nonexistent/report.json", "junit.xml"}, nil, 2, "read report"},
		{[]string{"junit", "../../reports/testdata/ginkgo-junit.xml", "junit.xml"}, nil, 3, "ginkgo-junit.xml is not a Ginkgo JSON report (--json-report)"},
		{[]string{"selftest"}, []string{"SELFTEST_REPEAT=2"}, 2, "run it in the steadystate module's root folder"},
		{[]string{"selftest"}, []string{"SELFTEST_SUITES=lostevents,nope"}, 2, `"nope" is not a suite of the matrix; valid: lostevents, leader, foreground, finalizer`},
		{[]string{"selftest"}, []string{"SELFTEST_MODES=correct,strip-then-delet"}, 2, `"strip-then-delet" is not a mode of the catalog; valid: correct, expectations-never-expire`},
		{[]string{"selftest"}, []string{"SELFTEST_PARALLEL=0"}, 2, `SELFTEST_PARALLEL="0" is not a positive number`},
		{[]string{"selftest", "--suites", "lostevents,nope"}, nil, 2, `--suites="lostevents,nope": "nope" is not a suite of the matrix`},
		{[]string{"selftest", "--modes", "correct", "--parallel", "0"}, nil, 2, `--parallel="0" is not a positive number`},
		{[]string{"selftest", "--repeat"}, nil, 2, "flag needs an argument: -repeat"},
		{[]string{"selftest", "extra"}, nil, 2, `selftest takes flags only (--suites, --subjects, --modes, --repeat, --parallel), not "extra"`},
		{[]string{"selftest", "--subjects", "stack,nope"}, nil, 2, `--subjects="stack,nope": "nope" is not a reference subject of the matrix; valid: workload, leader, composite, cluster, stack`},
		{[]string{"selftest"}, []string{"SELFTEST_SUBJECTS=stack", "SELFTEST_MODES=status-hot-loop"}, 2, "subjects stack and modes status-hot-loop select no cell of the matrix"},
		// A flag given wins over its variable, which is then not read.
		{[]string{"selftest", "--suites", "leader", "--repeat", "2"}, []string{"SELFTEST_SUITES=nope", "SELFTEST_REPEAT=x"}, 2, "run it in the steadystate module's root folder"},
		{[]string{"catalog", "x"}, nil, 2, "catalog takes no arguments"},
		{[]string{"e2e", "--parallel", "0"}, nil, 2, "e2e --parallel 0: suites run side by side only on PROVIDER=local"},
		{[]string{"e2e", "--parallel", "2"}, []string{"PROVIDER=kind"}, 2, "e2e --parallel 2: suites run side by side only on PROVIDER=local"},
		{[]string{"conform"}, nil, 2, "conform needs --subject FILE"},
		{[]string{"conform", "--subject", "s.yaml", "extra"}, nil, 2, `conform takes flags only (--subject FILE, --provider, --out), not "extra"`},
		{[]string{"conform", "--subject", "/nonexistent/s.yaml"}, nil, 2, "subject file: open /nonexistent/s.yaml"},
		{[]string{"conform", "--subject", "../../fixtures/subjects/replicaset.yaml", "--provider", "moon"}, kubeBins, 2, "--provider moon: conform runs on local"},
		{[]string{"conform", "--subject", "../../fixtures/subjects/replicaset.yaml", "--provider", "existing"}, append(kubeBins, "SUBJECT_PLACEMENT=pods"), 2, "has no run.pod: on --provider existing the controller runs in pods"},
		{[]string{"suite"}, nil, 2, "suite needs a suite name: one of lostevents, leader, foreground, finalizer"},
		{[]string{"suite", "nope", "-ginkgo.v"}, nil, 2, `no suite "nope": the suites are lostevents, leader, foreground, finalizer`},
		{[]string{"suite", "leader", "-steadystate.windw=2s"}, nil, 2, "flag provided but not defined: -steadystate.windw"},
		{[]string{"conform", "--subject", "../../fixtures/subjects/replicaset.yaml", "--provider", "kind"}, kubeBins, 2, "has no run.pod: on --provider kind the controller runs in pods"},
		{[]string{"conform", "--subject", "testdata/no-capability.yaml"}, []string{"KUBE_VERSION=v1.0.99"}, 2, "capabilities: none bound; expected at least one of scalableWorkload"},
		{[]string{"verify"}, nil, 2, "verify takes one bundle"},
		{[]string{"explore"}, nil, 2, "explore needs --subject"},
		{[]string{"explore", "--subject", "workload", "--budget", "10"}, nil, 2, `--budget "10" is not a duration: use one such as 10m or 90s`},
		{[]string{"explore", "--subject", "workload", "--seed", "x"}, nil, 2, `--seed "x" is not a seed`},
		{[]string{"explore", "--subject", "workload", "--confirm", "0"}, nil, 2, "--confirm 0: a shrink candidate is replayed at least once"},
		{[]string{"explore", "--subject", "workload", "--pattern", "refused"}, nil, 2, `--pattern "refused" is not a pattern: use one of unobserved, crash, any, refused-once`},
		{[]string{"explore", "--subject", "workload", "--pattern", "crash", "--replay", "x.yaml"}, nil, 2, "--pattern draws schedules; a replay runs the one in its file: drop --pattern"},
		{[]string{"explore", "--subject", "workload", "--bug", "strip-then-delete"}, nil, 2, `--bug "strip-then-delete" is not a seeded bug of subject workload`},
		{[]string{"explore", "--subject", "testdata/no-capability.yaml"}, nil, 2, "capabilities: none bound; expected at least one of scalableWorkload"},
		{[]string{"explore", "--subject", "workload", "--replay", "../../suites/explore/testdata/bad.yaml"}, nil, 2, `bad.yaml:4: steps[0].fault: "watch-stal" is not a fault; valid: answer-409`},
		{[]string{"explore", "--subject", "leader", "--replay", "../../suites/explore/testdata/lost-create.yaml"}, nil, 2, "subject leader has no capability scalableWorkload that exploration drives: it has leaderElected"},
		{[]string{"upstream"}, []string{"UPSTREAM_CELLS=kruise-v1.8.0-gate-of"}, 2, `"kruise-v1.8.0-gate-of" is not a cell of the upstream matrix; valid: cluster-api-v1.9.4,`},
		{[]string{"upstream"}, []string{"UPSTREAM_CELLS=controller-runtime-v0.17.2"}, 2, "upstream cell controller-runtime-v0.17.2 (seed 004, the release with the bug) cannot run without controller-runtime-v0.17.3"},
		{[]string{"upstream", "--cells", "controller-runtime-v0.17.3"}, []string{"UPSTREAM_CELLS=nope"}, 2, "upstream cell controller-runtime-v0.17.3 (seed 004, the release with the fix) cannot run without controller-runtime-v0.17.2"},
		{[]string{"upstream", "--repeat", "0"}, nil, 2, `--repeat="0" is not a positive number`},
		{[]string{"upstream"}, []string{"PROVIDER=existing"}, 2, "the upstream cells run on local (controllers as processes) or kind (in pods"},
		{[]string{"upstream"}, []string{"UPSTREAM_DIR=" + t.TempDir()}, 2, "needs release cluster-api@v1.9.4, which is not built in"},
		{[]string{"upstream-bins", "kruise@v9"}, nil, 2, `"kruise@v9" is not an upstream release; known: controller-runtime@v0.17.2,`},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			cmd := command(t, t.TempDir(), tc.args...)
			cmd.Env = append(cmd.Env, tc.env...)
			var output bytes.Buffer
			cmd.Stdout, cmd.Stderr = &output, &output
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Bad input stops at once; a command that does not (a cluster
			// started after all) is stopped, not left running.
			watchdog := time.AfterFunc(2*time.Minute, func() {
				if err := cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
					t.Errorf("stop %s: %v", cmd, err)
				}
			})
			err := cmd.Wait()
			watchdog.Stop()
			out := output.Bytes()
			code := 0
			if exit, ok := err.(*exec.ExitError); ok {
				code = exit.ExitCode()
			}
			if code != tc.code || !strings.Contains(string(out), tc.contains) {
				t.Errorf("exit %d, output:\n%s\nwant exit %d and %q", code, out, tc.code, tc.contains)
			}
			if first, _, _ := strings.Cut(string(out), "\n"); !strings.HasPrefix(first, "steadystate: ") {
				t.Errorf("first line %q does not start with the command name", first)
			}
		})
	}
}

// TestEveryCommandHasHelp: every command of the usage, given -h or
// --help, prints its usage with its flags to stdout, nothing to stderr,
// and succeeds.
func TestEveryCommandHasHelp(t *testing.T) {
	flags := map[string][]string{
		"selftest": {"-suites", "-modes", "-repeat", "-parallel", "SELFTEST_SUITES", "SELFTEST_PARALLEL"},
		"upstream": {"-cells", "-repeat", "-parallel", "UPSTREAM_CELLS", "UPSTREAM_REPEAT"},
		"cluster":  {"-name"},
		"conform":  {"flags:", "  -subject", "  -provider", "  -out", "  -capabilities", "  -fail-on-gaps", "Exit codes"},
		"explore":  {"flags:", "  -subject", "  -bug", "  -budget", "  -seed", "  -capability", "  -first", "  -replay", "  -repeat", "  -shrink", "  -confirm"},
		"verify":   {"flags:", "  -digest", "  -no-digest", "  -fail-on-gaps", "Exit"},
		"report":   {"flags:", "  -fail-on-gaps", "Exit codes"},
		"init":     {"flags:", "  -out", "  -no-build", "  -command", "  -sample", "  -crd", "  -name"},
		"suite":    {"-steadystate.converge-timeout", "-steadystate.window", "-steadystate.recovery-margin", "-ginkgo."},
		"e2e":      {"-artifacts", "-label-filter", "-focus", "SUITE FLAGS"},
	}
	var names []string
	for _, line := range strings.Split(usage, "\n") {
		if rest, ok := strings.CutPrefix(line, "  steadystate "); ok {
			if name := strings.Fields(rest)[0]; !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	if len(names) < 14 {
		t.Fatalf("found %d commands in the usage (%v): the test reads it wrong", len(names), names)
	}
	// The usage names the exit codes and where they are documented, and
	// the page documents each.
	for _, want := range []string{"Exit codes (docs/conformance.md#exit-codes): 0 passed", "1 a finding", "2 a usage mistake", "3 a harness error", "4 a pass with gaps under --fail-on-gaps"} {
		if !strings.Contains(strings.Join(strings.Fields(usage), " "), want) {
			t.Errorf("the usage does not say %q", want)
		}
	}
	page, err := os.ReadFile("../../docs/conformance.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\n### Exit codes\n", "\n| 0 | passed", "\n| 1 | a finding", "\n| 2 | a usage mistake", "\n| 3 | ERROR", "\n| 4 | PASSED WITH GAPS under `--fail-on-gaps`"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("docs/conformance.md does not document %q", strings.TrimSpace(want))
		}
	}
	for _, name := range names {
		for _, h := range []string{"-h", "--help"} {
			args := []string{name, h}
			if name == "cluster" && h == "--help" {
				args = []string{name, "up", h}
			}
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				cmd := command(t, t.TempDir(), args...)
				var stderr strings.Builder
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil || stderr.Len() != 0 || !strings.HasPrefix(string(out), "usage:") {
					t.Fatalf("err %v, stdout:\n%s\nstderr:\n%s\nwant the usage on stdout and nothing else", err, out, stderr.String())
				}
				if !strings.Contains(string(out), "steadystate "+name) {
					t.Errorf("help of %s does not show how it is called:\n%s", name, out)
				}
				for _, f := range flags[name] {
					if !strings.Contains(string(out), f) {
						t.Errorf("help of %s does not list %s:\n%s", name, f, out)
					}
				}
			})
		}
	}
}

func TestDownWhenNotUpIsFine(t *testing.T) {
	out, err := command(t, t.TempDir(), "cluster", "down", "--name", "absent").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "cluster absent is not up") {
		t.Errorf("err=%v, output:\n%s", err, out)
	}
}
