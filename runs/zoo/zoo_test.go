package zoo_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/fixtures"
	"github.com/steadystate-dev/steadystate/runs/zoo"
	"github.com/steadystate-dev/steadystate/subjectfile"
)

// TestZooFiles: every zoo file loads, starts with a comment saying what
// the controller does, binds the steady-state capability, runs one
// kube-controller-manager controller that it also turns off in the local
// cluster when the local cluster runs it (else two would reconcile the
// same objects), and says its pods must run (run.needsNodes) when its
// objects include a built-in workload.
func TestZooFiles(t *testing.T) {
	files, err := fs.Glob(fixtures.Zoo, "zoo/*.yaml")
	if err != nil || len(files) < 9 {
		t.Fatalf("zoo files %v, %v", files, err)
	}
	// The candidates (fixtures/zoo/candidates), written but not yet run
	// through the zoo, and the files a kept finding replays
	// (fixtures/zoo/repro) are held to the same rules.
	for _, dir := range []string{"candidates", "repro"} {
		more, err := filepath.Glob(filepath.Join("..", "..", "fixtures", "zoo", dir, "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, more...)
	}
	bin := t.TempDir()
	writeFile(t, filepath.Join(bin, "kube-controller-manager"), "#!/bin/sh\n", 0o755)
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			data, err := fixtures.Zoo.ReadFile(name)
			if strings.HasPrefix(name, "..") {
				data, err = os.ReadFile(name)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(data), "# ") {
				t.Error("the file does not start with a comment saying what the controller does")
			}
			f, err := subjectfile.Parse(data, filepath.Base(name), subjectfile.Options{KubeBinDir: bin})
			if err != nil {
				t.Fatal(err)
			}
			if f.Name+".yaml" != filepath.Base(name) {
				t.Errorf("subject %q in %s: name the file after the subject", f.Name, name)
			}
			if !slices.Contains(f.Capabilities.Bound(), "reconciledObjects") {
				t.Errorf("bound %v, not reconciledObjects", f.Capabilities.Bound())
			}
			var run []string
			for _, a := range f.Run.Command {
				if c, ok := strings.CutPrefix(a, "--controllers="); ok {
					run = strings.Split(c, ",")
				}
			}
			// The local cluster's own must be off (else two would
			// reconcile the same objects); one it does not run cannot be.
			var off []string
			if len(run) == 1 && slices.Contains(local.DefaultControllers, run[0]) {
				off = run
			}
			if len(run) != 1 || !slices.Equal(off, f.Run.DisableControllers) {
				t.Errorf("runs controllers %v, turns off %v in the local cluster: expected one, turned off when the local cluster runs it (%v)", run, f.Run.DisableControllers, off)
			}
			if _, err := f.SteadyObjects(subjectfile.Vars{Namespace: "n"}, func(schema.GroupVersionKind) (bool, error) { return true, nil }); err != nil {
				t.Error(err)
			}
			// A workload's pods stay Pending without nodes, and its
			// convergence would break for the cluster, not the subject.
			if maker := f.PodMaker(); maker != "" && !f.Run.NeedsNodes {
				t.Errorf("its %s makes pods that must run: set run.needsNodes", maker)
			}
		})
	}
}

// TestSubjectsPick: ZOO_SUBJECTS picks by file stem, in its order; a
// name the zoo lacks is refused with the valid names.
func TestSubjectsPick(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b", "a", "c"} {
		writeFile(t, filepath.Join(dir, n+".yaml"), "", 0o644)
	}
	all, err := zoo.Subjects(dir, nil)
	if err != nil || len(all) != 3 || all[0].Name != "a" {
		t.Fatalf("all: %v, %v", all, err)
	}
	some, err := zoo.Subjects(dir, []string{"c", "a"})
	if err != nil || len(some) != 2 || some[0].Name != "c" || some[1].File != filepath.Join(dir, "a.yaml") {
		t.Fatalf("picked %v, %v", some, err)
	}
	_, err = zoo.Subjects(dir, []string{"d"})
	if err == nil || !strings.Contains(err.Error(), `ZOO_SUBJECTS names "d"`) || !strings.Contains(err.Error(), "a, b, c") {
		t.Fatalf("unknown subject: %v", err)
	}
	if _, err := zoo.Subjects(t.TempDir(), nil); err == nil {
		t.Fatal("an empty zoo is not refused")
	}
}

// fakeSteadystate is a steadystate program that writes the matrix of a
// conform run (from the testdata file named by ZOO_FAKE_MATRIX, per run
// in turn) and prints a digest, and accepts verify, which ends, as it
// does, on the run's result and exits with its code: 1 for the second
// run's finding.
const fakeSteadystate = `#!/bin/sh
case "$1" in
conform)
  n=$(cat "$ZOO_FAKE_COUNT" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$ZOO_FAKE_COUNT"
  mkdir -p "$ARTIFACTS/conform"
  cp "$ZOO_FAKE_DIR/run$n.json" "$ARTIFACTS/conform/matrix.json" || exit 1
  echo "steadystate [1s] spec 1 of 2: LOCAL_NODES=$LOCAL_NODES"
  echo "conform: bundle x, manifest digest sha256:0123456789012345678901234567890123456789012345678901234567890123"
  [ $n = 1 ] ;;
verify)
  echo "verify: re-judged 5 verdict(s) of 2 spec(s) from their evidence, 0 differ"
  echo "verify: $4 is intact and its verdicts stand: the manifest's sha256 is the published digest"
  if [ "$(cat "$ZOO_FAKE_COUNT")" = 1 ]; then echo "verify: PASSED"; else echo "verify: NOT PASSED — 1 broken (findings), 1 error"; exit 1; fi ;;
esac
`

// TestRunAllFromRecordedRuns: two runs of one subject, the first passed
// and the second broken on a property beside an error, read from their
// matrices as conform writes them: the matrix shows each run, each spec's
// times, every bundle verified and the runs that did not pass with their
// folders; it is kept as zoo.json and zoo.md.
func TestRunAllFromRecordedRuns(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "steadystate")
	writeFile(t, prog, fakeSteadystate, 0o755)
	t.Setenv("ZOO_FAKE_DIR", filepath.Join(mustAbs(t, "testdata")))
	t.Setenv("ZOO_FAKE_COUNT", filepath.Join(dir, "count"))
	zooDir := filepath.Join(dir, "zoo")
	mkdir(t, zooDir)
	writeFile(t, filepath.Join(zooDir, "job.yaml"), "", 0o644)
	subjects, err := zoo.Subjects(zooDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	art := filepath.Join(dir, "artifacts")
	mkdir(t, art)
	var progress bytes.Buffer
	cfg := zoo.Config{Dir: zooDir, Runs: 2, Steadystate: prog, Artifacts: art, Env: []string{"LOCAL_NODES=on"}}
	m, err := zoo.RunAll(t.Context(), cfg, subjects, &progress)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[1/2] job run 1/2: conform", "[2/2] job run 2/2: reconcile broken (reconcile/quiescent)", "LOCAL_NODES=on",
		"; verify: PASSED", "; verify: NOT PASSED — 1 broken (findings), 1 error"} {
		if !strings.Contains(progress.String(), want) {
			t.Errorf("progress does not say %q:\n%s", want, progress.String())
		}
	}
	var out bytes.Buffer
	if m.Print(&out) {
		t.Error("a broken run printed as all passed")
	}
	text := out.String()
	for _, want := range []string{
		"job      reconcile  2     P B",
		"settles, goes quiet and leaves nothing behind              P B      50s     50s",
		"settles again after a restart right after its first write  P P      12s     12s",
		"2/2",
		"job run 2, reconcile: broken: reconcile/quiescent (/a/conform/reconcile/job-correct/1)",
		"zoo: 1 of 2 suite runs passed",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the matrix does not say %q:\n%s", want, text)
		}
	}
	kept, err := zoo.Read(art)
	if err != nil || len(kept.Results) != 1 || len(kept.Results[0].Runs) != 2 {
		t.Fatalf("zoo.json: %+v, %v", kept, err)
	}
	md, err := os.ReadFile(filepath.Join(art, "zoo.md"))
	if err != nil || !strings.Contains(string(md), "| job | reconcile | 2 | P B |") {
		t.Errorf("zoo.md:\n%s (%v)", md, err)
	}
}

// TestRunAllSideBySide: with Parallel 2, two conform runs are under way
// at once (each fake run waits, up to 20 s, until another has started,
// and leaves no matrix if none does), and the matrix keeps each
// subject's runs in order and says how many went side by side.
func TestRunAllSideBySide(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "steadystate")
	writeFile(t, prog, `#!/bin/sh
case "$1" in
conform)
  touch "$ZOO_FAKE_GATE/$$"
  i=0
  until [ $(ls "$ZOO_FAKE_GATE" | wc -l) -ge 2 ]; do
    i=$((i+1)); [ $i -gt 400 ] && { echo "no other run started"; exit 1; }
    sleep 0.05
  done
  mkdir -p "$ARTIFACTS/conform"
  cp "$ZOO_FAKE_DIR/run1.json" "$ARTIFACTS/conform/matrix.json"
  echo "conform: bundle x, manifest digest sha256:0123456789012345678901234567890123456789012345678901234567890123" ;;
verify)
  echo "verify: re-judged 5 verdict(s) of 2 spec(s) from their evidence, 0 differ"
  echo "verify: $4 is intact and its verdicts stand: the manifest's sha256 is the published digest"
  if [ "$(cat "$ZOO_FAKE_COUNT")" = 1 ]; then echo "verify: PASSED"; else echo "verify: NOT PASSED — 1 broken (findings), 1 error"; exit 1; fi ;;
esac
`, 0o755)
	t.Setenv("ZOO_FAKE_DIR", mustAbs(t, "testdata"))
	gate := filepath.Join(dir, "gate")
	mkdir(t, gate)
	t.Setenv("ZOO_FAKE_GATE", gate)
	zooDir := filepath.Join(dir, "zoo")
	mkdir(t, zooDir)
	for _, n := range []string{"job", "cronjob"} {
		writeFile(t, filepath.Join(zooDir, n+".yaml"), "", 0o644)
	}
	subjects, _ := zoo.Subjects(zooDir, nil)
	art := filepath.Join(dir, "artifacts")
	var progress bytes.Buffer
	cfg := zoo.Config{Dir: zooDir, Runs: 2, Steadystate: prog, Artifacts: art, Parallel: 2}
	m, err := zoo.RunAll(t.Context(), cfg, subjects, &progress)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if !m.Print(&out) {
		t.Errorf("the runs did not both pass side by side:\n%s\n%s", out.String(), progress.String())
	}
	if len(m.Results) != 2 || m.Results[0].Subject.Name != "cronjob" {
		t.Fatalf("results %+v", m.Results)
	}
	for _, r := range m.Results {
		if len(r.Runs) != 2 || r.Runs[0].N != 1 || r.Runs[1].N != 2 {
			t.Errorf("%s's runs %+v, want runs 1 and 2 in order", r.Subject.Name, r.Runs)
		}
	}
	if !strings.Contains(out.String(), "2 subject(s) x 2 run(s), 2 side by side") {
		t.Errorf("the matrix does not say the runs went side by side:\n%s", out.String())
	}
}

// TestRunAllInterruptsItsRuns: ended early, the zoo interrupts the run
// under way (SIGINT, so it stops what it started) rather than killing
// it, waits for it, and starts no other.
func TestRunAllInterruptsItsRuns(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "steadystate")
	writeFile(t, prog, `#!/bin/sh
trap 'echo stopped > "$ZOO_FAKE_GATE/stopped"; exit 3' INT
touch "$ZOO_FAKE_GATE/started-$$"
while :; do sleep 0.05; done
`, 0o755)
	gate := filepath.Join(dir, "gate")
	mkdir(t, gate)
	t.Setenv("ZOO_FAKE_GATE", gate)
	zooDir := filepath.Join(dir, "zoo")
	mkdir(t, zooDir)
	writeFile(t, filepath.Join(zooDir, "job.yaml"), "", 0o644)
	subjects, _ := zoo.Subjects(zooDir, nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		for {
			if started, _ := filepath.Glob(filepath.Join(gate, "started-*")); len(started) > 0 {
				cancel()
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	m, err := zoo.RunAll(ctx, zoo.Config{Dir: zooDir, Runs: 3, Steadystate: prog, Artifacts: dir}, subjects, &bytes.Buffer{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("RunAll ended with %v, not the cancellation", err)
	}
	if data, err := os.ReadFile(filepath.Join(gate, "stopped")); err != nil || string(data) != "stopped\n" {
		t.Errorf("the run was not interrupted: %q, %v", data, err)
	}
	if started, _ := filepath.Glob(filepath.Join(gate, "started-*")); len(started) != 1 {
		t.Errorf("%d runs started, want the one under way", len(started))
	}
	for _, n := range []string{"2", "3"} {
		if _, err := os.Stat(filepath.Join(dir, "job", n)); err == nil {
			t.Errorf("run %s was set up after the end", n)
		}
	}
	if len(m.Results) != 0 {
		t.Errorf("an interrupted run is in the matrix: %+v", m.Results)
	}
}

// TestRunWithoutMatrixIsAnError: a conform run that leaves no matrix is
// an error run, never a pass.
func TestRunWithoutMatrixIsAnError(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "steadystate")
	writeFile(t, prog, "#!/bin/sh\necho the cluster did not start; exit 1\n", 0o755)
	zooDir := filepath.Join(dir, "zoo")
	mkdir(t, zooDir)
	writeFile(t, filepath.Join(zooDir, "job.yaml"), "", 0o644)
	subjects, _ := zoo.Subjects(zooDir, nil)
	m, err := zoo.RunAll(t.Context(), zoo.Config{Dir: zooDir, Runs: 1, Steadystate: prog, Artifacts: dir}, subjects, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if m.Print(&out) || !strings.Contains(out.String(), "job      conform  1     E") || !strings.Contains(out.String(), "left no matrix") {
		t.Errorf("matrix:\n%s", out.String())
	}
}

// writeFile writes a file of a test's set-up, failing the test if it cannot.
func writeFile(t *testing.T, path, content string, perm os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
}

// mkdir makes a folder of a test's set-up, failing the test if it cannot.
func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
