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

func TestValidateAgreesWithTheRun(t *testing.T) {
	out, code := validate(t, evidenceDir(t, "leader-start-on-shutdown-follower-shutdown.json", func(s string) string { return s }))
	if code != 0 || !strings.Contains(out, "same       broken invariant leader/only-holder-writes") ||
		!strings.Contains(out, "verdict: broken [leader/only-holder-writes]") || !strings.Contains(out, ", 0 differ,") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
}

func TestValidateFailsWhenAVerdictDiffers(t *testing.T) {
	// The run is said to have found the writes held: the evidence says not.
	out, code := validate(t, evidenceDir(t, "leader-start-on-shutdown-follower-shutdown.json", func(s string) string {
		return strings.Replace(s, `"id":"leader/only-holder-writes","stage":"invariant","sentence":"every leader-only write is made by the replica holding a valid Lease at that moment","outcome":"broken"`,
			`"id":"leader/only-holder-writes","stage":"invariant","sentence":"every leader-only write is made by the replica holding a valid Lease at that moment","outcome":"held"`, 1)
	}))
	if code != 1 || !strings.Contains(out, "DIFFERS") || !strings.Contains(out, "the run recorded: held") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
}

func TestValidateBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, dir, want string
	}{
		{"not a folder", "/nonexistent/artifacts", "/nonexistent/artifacts is not a folder"},
		{"no evidence", t.TempDir(), "no evidence.json below"},
		{"not evidence", evidenceDir(t, "leader-correct-follower-shutdown.json", func(string) string { return "{not json" }), "is not steadystate evidence"},
		{"a newer format", evidenceDir(t, "leader-correct-follower-shutdown.json", func(s string) string {
			return strings.Replace(s, `"format":2`, `"format":9`, 1)
		}), "has evidence format 9; this steadystate reads up to 2"},
		{"an older format", evidenceDir(t, "leader-correct-follower-shutdown.json", func(s string) string {
			return strings.Replace(s, `"format":2`, `"format":1`, 1)
		}), "has evidence format 1, from an older steadystate"},
	} {
		out, code := validate(t, tc.dir)
		if code != 1 || !strings.Contains(out, tc.want) || !strings.HasPrefix(out, "steadystate: ") {
			t.Errorf("%s: exit %d, output:\n%s\nwant exit 1 and %q", tc.name, code, out, tc.want)
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
	out, code := validate(t, unbound(filepath.Join("job", "steadystate-job-writes-refused-no-write.json"), "broken"))
	if code != 0 || !strings.Contains(out, "same       not-bound assumption steadystate/writes-refused: the controller made no write while the refusal was armed") {
		t.Errorf("the Job controller's refusal that drew no write: exit %d, output:\n%s", code, out)
	}
	out, code = validate(t, unbound("steadystate-correct-writes-refused.json", "held"))
	if code != 1 || !strings.Contains(out, "DIFFERS    not-evaluated assumption steadystate/writes-refused: the evidence shows the property bound") {
		t.Errorf("a run whose writes were refused, recorded not bound: exit %d, output:\n%s", code, out)
	}
}
