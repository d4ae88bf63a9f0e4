package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// evidenceDir is a folder holding one recorded evidence file (from the
// judges' testdata), changed by edit.
func evidenceDir(t *testing.T, name string, edit func(string) string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "judge", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "spec")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "evidence.json"), []byte(edit(string(data))), 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(dir)
}

func validate(t *testing.T, dir string) (string, int) {
	t.Helper()
	out, err := command(t, t.TempDir(), "validate", dir).CombinedOutput()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	}
	return string(out), code
}

// Validate's verdicts and exit codes on recorded evidence that agrees
// with its run: a property broken is a finding (1), a premise that did not
// hold an error (3), every property held a pass (0).
func TestValidateAgreesWithTheRun(t *testing.T) {
	same := func(s string) string { return s }
	for _, tc := range []struct {
		file, verdict, result string
		code                  int
	}{
		{"leader-start-on-shutdown-follower-shutdown.json", "verdict: broken [leader/only-holder-writes]", "validate: NOT PASSED — 1 broken (findings), 0 error", 1},
		{"leader-correct-follower-shutdown.json", "verdict: passed", "validate: PASSED", 0},
		{filepath.Join("job", "steadystate-job-writes-refused-no-write.json"), "verdict: error (assumption reconcile/writes-refused did not hold)", "validate: ERROR — 0 broken (findings), 1 error", 3},
	} {
		out, code := validate(t, evidenceDir(t, tc.file, same))
		if code != tc.code || !strings.Contains(out, tc.verdict) || !strings.Contains(out, ", 0 differ,") || !strings.Contains(out, tc.result+"\n") {
			t.Errorf("%s: exit %d, want %d, %q and %q; output:\n%s", tc.file, code, tc.code, tc.verdict, tc.result, out)
		}
	}
	out, code := validate(t, evidenceDir(t, "leader-start-on-shutdown-follower-shutdown.json", same))
	if !strings.Contains(out, "same       broken invariant leader/only-holder-writes") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
}

// A verdict that differs from the run's is an error (3), whatever the
// verdicts: the evidence or the judges changed, so neither can be trusted.
func TestValidateFailsWhenAVerdictDiffers(t *testing.T) {
	// The run is said to have found the writes held: the evidence says not.
	out, code := validate(t, evidenceDir(t, "leader-start-on-shutdown-follower-shutdown.json", func(s string) string {
		return strings.Replace(s, `"id":"leader/only-holder-writes","stage":"invariant","sentence":"every leader-only write is made by the replica holding a valid Lease at that moment","outcome":"broken"`,
			`"id":"leader/only-holder-writes","stage":"invariant","sentence":"every leader-only write is made by the replica holding a valid Lease at that moment","outcome":"held"`, 1)
	}))
	if code != 3 || !strings.Contains(out, "DIFFERS") || !strings.Contains(out, "the run recorded: held") {
		t.Errorf("exit %d, want 3; output:\n%s", code, out)
	}
}

func TestValidateBadInput(t *testing.T) {
	// A path that is no folder is input refused (2); a folder with
	// nothing to judge, or evidence that does not read, judges nothing (3).
	for _, tc := range []struct {
		name, dir, want string
		code            int
	}{
		{"not a folder", "/nonexistent/artifacts", "/nonexistent/artifacts is not a folder", 2},
		{"no evidence", t.TempDir(), "no evidence.json below", 3},
		{"not evidence", evidenceDir(t, "leader-correct-follower-shutdown.json", func(string) string { return "{not json" }), "is not steadystate evidence", 3},
		{"a newer format", evidenceDir(t, "leader-correct-follower-shutdown.json", func(s string) string {
			return strings.Replace(s, `"format":2`, `"format":9`, 1)
		}), "has evidence format 9; this steadystate reads up to 3", 3},
		{"an older format", evidenceDir(t, "leader-correct-follower-shutdown.json", func(s string) string {
			return strings.Replace(s, `"format":2`, `"format":1`, 1)
		}), "has evidence format 1, from an older steadystate", 3},
	} {
		out, code := validate(t, tc.dir)
		if code != tc.code || !strings.Contains(out, tc.want) || !strings.HasPrefix(out, "steadystate: ") {
			t.Errorf("%s: exit %d, output:\n%s\nwant exit %d and %q", tc.name, code, out, tc.code, tc.want)
		}
	}
}

// A property recorded as not bound is shown as the run recorded it, never
// re-judged into a verdict the run could not give.
func TestValidateKeepsNotBoundAsRun(t *testing.T) {
	out, code := validate(t, evidenceDir(t, "foreground-correct-blocked.json", func(s string) string {
		return strings.Replace(s, `"id":"foreground/blocker-named","stage":"convergence","sentence":"(b) within 15s a condition message on the claim names what blocks the deletion (where the subject binds a blockerMessage)","outcome":"held"`,
			`"id":"foreground/blocker-named","stage":"convergence","sentence":"(b) within 15s a condition message on the claim names what blocks the deletion (where the subject binds a blockerMessage)","outcome":"not-bound","reason":"the subject binds no blockerMessage"`, 1)
	}))
	if code != 0 || !strings.Contains(out, "as run     not-bound convergence foreground/blocker-named: the subject binds no blockerMessage") || !strings.Contains(out, ", 0 differ,") || !strings.Contains(out, "verdict: passed") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
}

// A "not bound" the run decided from what it recorded (the refused writes
// found the Job controller with no write to make) is re-made from the
// evidence: it stands on the Job controller's run, and differs on a run
// whose controller's writes were refused.
func TestValidateRemakesANotBoundDecidedFromEvidence(t *testing.T) {
	unbound := func(file, outcome string) string {
		return evidenceDir(t, file, func(s string) string {
			// Recorded in format 2, under the suite's former name;
			// validate reads it as reconcile/writes-refused.
			i := strings.Index(s, `"id":"steadystate/writes-refused","stage":"assumption"`)
			if i < 0 {
				t.Fatalf("%s records no steadystate/writes-refused", file)
			}
			j := strings.Index(s[i:], `"outcome":"`+outcome+`"`)
			k := strings.Index(s[i:], "}")
			if j < 0 || j > k {
				t.Fatalf("%s records steadystate/writes-refused other than %s", file, outcome)
			}
			return s[:i] + strings.Replace(s[i:i+k], `"outcome":"`+outcome+`"`, `"outcome":"not-bound"`, 1) + s[i+k:]
		})
	}
	// The properties after it stay not evaluated: the spec's verdict is
	// unknown, an error (3), whichever way the premise was recorded.
	out, code := validate(t, unbound(filepath.Join("job", "steadystate-job-writes-refused-no-write.json"), "broken"))
	if code != 3 || !strings.Contains(out, "same       not-bound assumption reconcile/writes-refused: the controller made no write while the refusal was armed") {
		t.Errorf("the Job controller's refusal that drew no write: exit %d, output:\n%s", code, out)
	}
	out, code = validate(t, unbound("steadystate-correct-writes-refused.json", "held"))
	if code != 3 || !strings.Contains(out, "DIFFERS    not-evaluated assumption reconcile/writes-refused: the evidence shows the property bound") {
		t.Errorf("a run whose writes were refused, recorded not bound: exit %d, output:\n%s", code, out)
	}
}
