package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/suites"
)

// fakeProgram is a `PROGRAM suite NAME FLAGS...` that records its
// arguments and, by suite, passes (writes a passing report, exits 0),
// fails (a failing report, exits 1) or dies (no report, exits 2).
const fakeProgram = `#!/bin/sh
echo "$@" >> "$(dirname "$0")/calls"
for a in "$@"; do case "$a" in -ginkgo.json-report=*) report="${a#-ginkgo.json-report=}";; esac; done
case "$2" in
pass) echo '[{"SuiteDescription":"Pass","SuiteSucceeded":true}]' > "$report"; exit 0;;
parted) echo '[{"SuiteDescription":"Parted","SuiteSucceeded":true}]' > "$report"; exit 0;;
key) [ -n "$STEADYSTATE_REDACTION_KEY" ] && [ "$STEADYSTATE_REDACTION_KEY" = "$WANT_KEY" ] || exit 3
  echo '[{"SuiteDescription":"Key","SuiteSucceeded":true}]' > "$report"; exit 0;;
fail) echo '[{"SuiteDescription":"Fail","SuiteSucceeded":false}]' > "$report"; exit 1;;
slow) trap 'echo "[{\"SuiteDescription\":\"Slow\",\"SuiteSucceeded\":false}]" > "$report"; exit 1' INT
  touch "$(dirname "$0")/started"; sleep 30 >/dev/null 2>&1 & wait; exit 0;;
ping|pong) d="$(dirname "$0")"; touch "$d/$2"; other=pong; [ "$2" = pong ] && other=ping
  i=0; while [ ! -e "$d/$other" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done
  [ -e "$d/$other" ] || exit 3
  echo "$2 line 1"; echo "$2 line 2"; echo "[{\"SuiteDescription\":\"$2\",\"SuiteSucceeded\":true}]" > "$report"; exit 0;;
*) exit 2;;
esac
`

// fake writes fakeProgram into a new folder: the folder and the program.
func fake(t *testing.T) (dir, prog string) {
	t.Helper()
	dir = t.TempDir()
	prog = filepath.Join(dir, "steadystate")
	if err := os.WriteFile(prog, []byte(fakeProgram), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, prog
}

// Every suite runs whichever failed before it, each with the flags, and
// the merged report holds every suite in order: one that wrote no report
// as a failed suite saying so.
func TestRunRunsEverySuiteAndMergesTheirReports(t *testing.T) {
	dir, prog := fake(t)
	art := filepath.Join(dir, "artifacts")
	var out strings.Builder
	passed, err := Run(t.Context(), Config{Program: prog, Artifacts: art,
		Suites:     []suites.Suite{{Name: "fail", Title: "Fail"}, {Name: "dies", Title: "Dies"}, {Name: "pass", Title: "Pass"}},
		Ginkgo:     []string{"-ginkgo.label-filter=x"},
		SuiteFlags: []string{"-steadystate.window=2s"}, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	if passed {
		t.Error("Run passed with a failing suite and one that wrote no report")
	}
	calls, err := os.ReadFile(filepath.Join(dir, "calls"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(calls)), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d suites ran, want 3:\n%s", len(lines), calls)
	}
	for i, name := range []string{"fail", "dies", "pass"} {
		for _, want := range []string{"suite " + name + " ", "-ginkgo.label-filter=x", "-steadystate.artifacts=" + art, "-steadystate.window=2s"} {
			if !strings.Contains(lines[i], want) {
				t.Errorf("run %d %q lacks %q", i, lines[i], want)
			}
		}
	}
	reports := merged(t, art)
	got := descriptions(reports)
	if want := []string{"Fail", "Dies", "Pass"}; !slices.Equal(got, want) {
		t.Fatalf("report holds suites %q, want %q", got, want)
	}
	if r := reports[1]; r.SuiteSucceeded || len(r.SpecialSuiteFailureReasons) != 1 || !strings.Contains(r.SpecialSuiteFailureReasons[0], "exit status 2") {
		t.Errorf("the suite that wrote no report is in it as %+v, want failed with its exit status", r)
	}
	if entries, _ := os.ReadDir(art); len(entries) != 1 {
		t.Errorf("the artifacts folder holds %d entries, want report.json only", len(entries))
	}
}

// A long suite starts first, the others after it in their order, and the
// merged report keeps the given order.
func TestLongSuitesStartFirst(t *testing.T) {
	if got := StartOrder([]suites.Suite{{Name: "a"}, {Name: "b", Long: true}, {Name: "c"}, {Name: "d", Long: true}}); !slices.Equal(got, []int{1, 3, 0, 2}) {
		t.Errorf("StartOrder = %v, want [1 3 0 2]", got)
	}
	dir, prog := fake(t)
	art := filepath.Join(dir, "artifacts")
	var out strings.Builder
	if _, err := Run(t.Context(), Config{Program: prog, Artifacts: art, Stdout: &out, Stderr: &out,
		Suites: []suites.Suite{{Name: "fail", Title: "Fail"}, {Name: "dies", Title: "Dies"}, {Name: "pass", Title: "Pass", Long: true}}}); err != nil {
		t.Fatal(err)
	}
	calls, err := os.ReadFile(filepath.Join(dir, "calls"))
	if err != nil {
		t.Fatal(err)
	}
	var ran []string
	for _, line := range strings.Split(strings.TrimSpace(string(calls)), "\n") {
		ran = append(ran, strings.Fields(line)[1])
	}
	if want := []string{"pass", "fail", "dies"}; !slices.Equal(ran, want) {
		t.Errorf("suites started in the order %q, want %q", ran, want)
	}
	if got, want := descriptions(merged(t, art)), []string{"Fail", "Dies", "Pass"}; !slices.Equal(got, want) {
		t.Errorf("report holds suites %q, want %q", got, want)
	}
}

// A suite made of parts runs as one process per part when suites run side
// by side, each with its part, cluster and artifacts folder, its report a
// suite per part; one at a time, it runs whole.
func TestASuiteInPartsRunsAProcessPerPart(t *testing.T) {
	for _, parallel := range []int{1, 2} {
		dir, prog := fake(t)
		art := filepath.Join(dir, "artifacts")
		var out strings.Builder
		passed, err := Run(t.Context(), Config{Program: prog, Artifacts: art, Stdout: &out, Stderr: &out, Parallel: parallel,
			Suites: []suites.Suite{{Name: "pass", Title: "Pass"}, {Name: "parted", Title: "Parted", Parts: 2, Long: true}}})
		if err != nil || !passed {
			t.Fatalf("parallel %d: Run = %v, %v; want passed", parallel, passed, err)
		}
		calls, err := os.ReadFile(filepath.Join(dir, "calls"))
		if err != nil {
			t.Fatal(err)
		}
		var parted []string
		for _, line := range strings.Split(strings.TrimSpace(string(calls)), "\n") {
			if strings.Fields(line)[1] == "parted" {
				parted = append(parted, line)
			}
		}
		want, titles := []string{""}, []string{"Pass", "Parted"}
		if parallel > 1 {
			want, titles = []string{"1/2", "2/2"}, []string{"Pass", "Parted (part 1 of 2)", "Parted (part 2 of 2)"}
		}
		if len(parted) != len(want) {
			t.Fatalf("parallel %d: suite parted ran %d times, want %d:\n%s", parallel, len(parted), len(want), calls)
		}
		slices.Sort(parted) // by their artifacts folders: part 1, then 2
		for i, part := range want {
			has := strings.Contains(parted[i], "-steadystate.part=")
			if part == "" && has {
				t.Errorf("parallel %d: the whole suite ran with a part: %q", parallel, parted[i])
			}
			if part == "" {
				continue
			}
			name := "parted-part-" + part[:1]
			for _, flag := range []string{"-steadystate.part=" + part, "-steadystate.cluster-name=" + name, "-steadystate.artifacts=" + filepath.Join(art, name)} {
				if !strings.Contains(parted[i], flag) {
					t.Errorf("parallel %d: part %s ran as %q, without %s", parallel, part, parted[i], flag)
				}
			}
		}
		if got := descriptions(merged(t, art)); !slices.Equal(got, titles) {
			t.Errorf("parallel %d: report holds suites %q, want %q", parallel, got, titles)
		}
	}
}

// Every suite passing is a passed run.
func TestRunPasses(t *testing.T) {
	dir, prog := fake(t)
	passed, err := Run(t.Context(), Config{Program: prog, Artifacts: dir, Suites: []suites.Suite{{Name: "pass", Title: "Pass"}, {Name: "pass", Title: "Pass"}}})
	if err != nil || !passed {
		t.Fatalf("Run = %v, %v; want passed", passed, err)
	}
}

// Parallel suites run side by side (ping and pong each wait for the other
// to have started: one at a time, the first would give up), each with a
// cluster of its own name; each one's output is written in one piece and
// the report keeps the suites' order.
func TestParallelSuitesRunSideBySide(t *testing.T) {
	dir, prog := fake(t)
	art := filepath.Join(dir, "artifacts")
	var out, errs strings.Builder
	passed, err := Run(t.Context(), Config{Program: prog, Artifacts: art, Parallel: 2,
		Suites: []suites.Suite{{Name: "ping", Title: "Ping"}, {Name: "pong", Title: "Pong"}, {Name: "pass", Title: "Pass"}}, Stdout: &out, Stderr: &errs})
	if err != nil || !passed {
		t.Fatalf("Run = %v, %v; want passed\n%s%s", passed, err, out.String(), errs.String())
	}
	for _, name := range []string{"ping", "pong"} {
		if !strings.Contains(out.String(), name+" line 1\n"+name+" line 2\n") {
			t.Errorf("the output of %s is not in one piece:\n%s", name, out.String())
		}
	}
	calls, err := os.ReadFile(filepath.Join(dir, "calls"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ping", "pong", "pass"} {
		if !strings.Contains(string(calls), "suite "+name+" ") || !strings.Contains(string(calls), "-steadystate.cluster-name="+name) {
			t.Errorf("suite %s did not run with a cluster of its own name:\n%s", name, calls)
		}
	}
	reports := merged(t, art)
	got := descriptions(reports)
	if want := []string{"ping", "pong", "Pass"}; !slices.Equal(got, want) {
		t.Errorf("report holds suites %q, want %q", got, want)
	}
}

// The ginkgo command's names of the suites' Ginkgo flags become the
// suites' -ginkgo.* flags; the ginkgo command's own are refused, saying
// why.
func TestGinkgoFlags(t *testing.T) {
	var args []string
	fs := flag.NewFlagSet("e2e", flag.ContinueOnError)
	GinkgoFlags(fs, &args)
	if err := fs.Parse([]string{"--label-filter", "capability:scalable", "-v", "--no-color", "--focus=a b"}); err != nil {
		t.Fatal(err)
	}
	want := []string{"-ginkgo.label-filter=capability:scalable", "-ginkgo.v=true", "-ginkgo.no-color=true", "-ginkgo.focus=a b"}
	if !slices.Equal(args, want) {
		t.Errorf("forwarded %q, want %q", args, want)
	}
	err := NotForSuites(fs.Parse([]string{"--procs=2"}))
	if err == nil || !strings.Contains(err.Error(), "a flag of the ginkgo command") {
		t.Errorf("--procs: %v, want refused as the ginkgo command's", err)
	}
}

func TestCheckSuiteFlags(t *testing.T) {
	if err := CheckSuiteFlags([]string{"-steadystate.window=2s", "-steadystate.subject-file=/x.yaml"}); err != nil {
		t.Error(err)
	}
	for _, bad := range [][]string{{"-steadystate.windo=2s"}, {"leader"}} {
		if err := CheckSuiteFlags(bad); err == nil {
			t.Errorf("CheckSuiteFlags(%q) accepted", bad)
		}
	}
}

// TestSuiteFlags: the suites' flags come after "--", and are theirs.
func TestSuiteFlags(t *testing.T) {
	args := []string{"--label-filter=x", "--", "-steadystate.window=2s"}
	if got, err := SuiteFlags(args, args[2:]); err != nil || !slices.Equal(got, args[2:]) {
		t.Errorf("SuiteFlags(%q) = %q, %v; want %q", args, got, err, args[2:])
	}
	if got, err := SuiteFlags([]string{"-v"}, nil); err != nil || len(got) != 0 {
		t.Errorf("SuiteFlags with none = %q, %v; want none", got, err)
	}
	for _, bad := range []struct{ args, rest []string }{
		{[]string{"leader"}, []string{"leader"}},                                     // no "--" before it
		{[]string{"-v", "leader", "--"}, []string{"leader", "--"}},                   // not right after "--"
		{[]string{"--", "-steadystate.windo=2s"}, []string{"-steadystate.windo=2s"}}, // not a suite flag
	} {
		if _, err := SuiteFlags(bad.args, bad.rest); err == nil {
			t.Errorf("SuiteFlags(%q, %q) accepted", bad.args, bad.rest)
		}
	}
}

// An interruption reaches the running suite once, as SIGINT, so it can
// clean up and write its report; the suites after it do not start, and
// the report holds what ran.
func TestInterruptStopsTheRun(t *testing.T) {
	dir, prog := fake(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	started := make(chan error, 1)
	go func() {
		started <- wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
			_, err := os.Stat(filepath.Join(dir, "started"))
			return err == nil, nil
		})
		cancel()
	}()
	var out strings.Builder
	start := time.Now()
	passed, err := Run(ctx, Config{Program: prog, Artifacts: dir, Suites: []suites.Suite{{Name: "slow", Title: "Slow"}, {Name: "pass", Title: "Pass"}}, Stdout: &out, Stderr: &out})
	if err := <-started; err != nil {
		t.Errorf("the slow suite did not start before the interruption: %v", err)
	}
	if err != nil || passed {
		t.Fatalf("Run = %v, %v; want not passed", passed, err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the interrupted suite took %s to stop", took)
	}
	reports := merged(t, dir)
	if len(reports) != 1 || reports[0].SuiteDescription != "Slow" {
		t.Errorf("report holds %+v, want the interrupted suite's own report only", reports)
	}
	if !strings.Contains(out.String(), "interrupted: pass not run") {
		t.Errorf("output does not say which suites did not run:\n%s", out.String())
	}
}

// merged reads the merged report a run wrote to its artifacts folder art.
func merged(t *testing.T, art string) []types.Report {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(art, ReportName))
	if err != nil {
		t.Fatal(err)
	}
	var reports []types.Report
	if err := json.Unmarshal(data, &reports); err != nil {
		t.Fatal(err)
	}
	return reports
}

// descriptions are the reports' suite descriptions, in order.
func descriptions(reports []types.Report) []string {
	var got []string
	for _, r := range reports {
		got = append(got, r.SuiteDescription)
	}
	return got
}

// Every suite gets the run's redaction key, this process's, in its
// environment: the suites of one run hash equal values equal.
func TestEverySuiteGetsTheRunsKey(t *testing.T) {
	dir, prog := fake(t)
	_, key, _ := strings.Cut(oracle.KeyEnviron(), "=")
	t.Setenv("WANT_KEY", key)
	var out strings.Builder
	passed, err := Run(t.Context(), Config{Program: prog, Artifacts: filepath.Join(dir, "artifacts"),
		Suites: []suites.Suite{{Name: "key", Title: "Key"}, {Name: "key", Title: "Key"}}, Stdout: &out, Stderr: &out})
	if err != nil || !passed {
		t.Errorf("passed %v, err %v: a suite did not get the run's key; output:\n%s", passed, err, out.String())
	}
}

func TestJSONReport(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
		ok   bool
	}{
		{[]string{"-ginkgo.v", "-ginkgo.json-report=/a/report.json"}, "/a/report.json", true},
		{[]string{"--ginkgo.json-report", "/b/report.json", "-ginkgo.v"}, "/b/report.json", true},
		{[]string{"-ginkgo.junit-report=/c/junit.xml", "-steadystate.window=2s"}, "", false},
		{[]string{"--", "-ginkgo.json-report=/d/report.json"}, "", false},
		{nil, "", false},
	} {
		if got, ok := JSONReport(tc.args); got != tc.want || ok != tc.ok {
			t.Errorf("JSONReport(%q) = %q, %v; want %q, %v", tc.args, got, ok, tc.want, tc.ok)
		}
	}
}
