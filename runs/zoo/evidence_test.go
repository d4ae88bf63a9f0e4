package zoo_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/runs/zoo"
)

const findingsDir, moduleRoot = "../../fixtures/zoo/findings", "../.."

// TestKeptFindingsStillBreak re-judges, with no cluster, the kept evidence
// of a breaking replay of every kept finding (its evidence:): every
// verdict a judge re-makes must be the one the replay recorded, and the
// properties broken must be exactly those the finding's schedule names,
// as make zoo-repro counts a replay that reproduces it, each re-made by a
// judge. A judge change that no longer calls a kept finding broken fails
// here, before anyone replays it. What the evidence cannot show (a change
// to how the suite runs a schedule: its waits, what it binds) only a
// replay shows: make zoo-repro FINDING=<name>.
func TestKeptFindingsStillBreak(t *testing.T) {
	names, err := zoo.FindingNames(findingsDir)
	if err != nil || len(names) == 0 {
		t.Fatalf("findings %v, %v", names, err)
	}
	for _, n := range names {
		f, err := zoo.LoadFinding(findingsDir, moduleRoot, n)
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		if f.Evidence == "" {
			t.Errorf("%s: no evidence: keep a breaking replay's evidence.json (make zoo-repro FINDING=%s writes it below $ARTIFACTS/zoo-repro) and name it in evidence:", n, n)
			continue
		}
		e, err := evidence.Read(filepath.Join(moduleRoot, f.Evidence))
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		if f.Unshown != "" {
			for _, p := range noLongerBreaks(f, e) {
				t.Errorf("%s (unshown: %s): %s", n, f.Unshown, p)
			}
			continue
		}
		for _, p := range stillBreaks(f, e) {
			t.Errorf("%s: %s", n, p)
		}
	}
}

// TestStillBreaksFailsOnDrift shows the check failing on recorded
// evidence it must refuse: a replay of another schedule that broke more
// than the finding's schedule names (the stuck rollout's evidence from
// before its schedule dropped same-end-state), and a finding's own
// replay with the history its verdict came from taken out, which no judge
// can call broken again.
func TestStillBreaksFailsOnDrift(t *testing.T) {
	f, err := zoo.LoadFinding(findingsDir, moduleRoot, "stuck-rollout")
	if err != nil {
		t.Fatal(err)
	}
	old, err := evidence.Read(filepath.Join(moduleRoot, "judge/testdata/explore-deployment-steady-stuck-rollout.json"))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(stillBreaks(f, old), "\n")
	for _, want := range []string{"not a replay of", "breaks [reconcile/recovers reconcile/same-end-state]"} {
		if !strings.Contains(got, want) {
			t.Errorf("the old stuck-rollout evidence: %q, want %q among the problems", got, want)
		}
	}

	e, err := evidence.Read(filepath.Join(moduleRoot, f.Evidence))
	if err != nil {
		t.Fatal(err)
	}
	if p := stillBreaks(f, e); len(p) > 0 {
		t.Fatalf("the kept evidence: %v, want none", p)
	}
	e.Histories = nil
	e.Proxies = nil
	got = strings.Join(stillBreaks(f, e), "\n")
	if !strings.Contains(got, "reconcile/recovers re-judged") || !strings.Contains(got, "breaks []") {
		t.Errorf("the kept evidence without its histories: %q, want recovers re-judged apart from the record and nothing broken", got)
	}
}

// stillBreaks says what keeps e from showing finding f broken today.
// noLongerBreaks is what keeps a finding the suite no longer shows
// (Unshown) from being taken for one it does: its kept evidence recorded
// every property its schedule names broken, and the judges now re-make
// none of them broken.
func noLongerBreaks(f zoo.Finding, e *evidence.Evidence) []string {
	var problems []string
	for _, id := range f.Breaks {
		i := slices.IndexFunc(e.Records, func(r verdict.Record) bool { return r.ID == id })
		if i < 0 || e.Records[i].Outcome != verdict.Broken {
			problems = append(problems, fmt.Sprintf("%s did not record %s broken", f.Evidence, id))
			continue
		}
		if got, remade := judge.Rejudge(e.Records[i], e); !remade || got.Outcome == verdict.Broken {
			problems = append(problems, fmt.Sprintf("%s re-judged %s (re-made: %v), and the finding says the suite no longer shows it", id, got.Outcome, remade))
		}
	}
	return problems
}

func stillBreaks(f zoo.Finding, e *evidence.Evidence) []string {
	var problems []string
	// A replay of the finding's own schedule, as exploration names it.
	if replays := " replays " + filepath.Base(f.Schedule) + " "; !strings.Contains(e.Spec, replays) {
		problems = append(problems, fmt.Sprintf("%s is the evidence of %q, not a replay of %s", f.Evidence, e.Spec, f.Schedule))
	}
	var broken, remadeBroken []string
	for _, rec := range e.Records {
		got, remade := judge.Rejudge(rec, e)
		if remade && got.Outcome != rec.Outcome {
			problems = append(problems, fmt.Sprintf("%s re-judged %s, the replay recorded %s: %s", rec.ID, got.Outcome, rec.Outcome, got.Reason))
		}
		if got.Outcome == verdict.Broken {
			broken = append(broken, rec.ID)
			if remade {
				remadeBroken = append(remadeBroken, rec.ID)
			}
		}
	}
	slices.Sort(broken)
	want := slices.Sorted(slices.Values(f.Breaks))
	if !slices.Equal(broken, want) {
		problems = append(problems, fmt.Sprintf("%s breaks %v, the schedule names %v", f.Evidence, broken, want))
	}
	// The verdict that makes the finding comes from a judge run now, not
	// from the record alone.
	for _, id := range want {
		if !slices.Contains(remadeBroken, id) {
			problems = append(problems, fmt.Sprintf("%s is broken in %s only as recorded: no judge re-made it from the evidence", id, f.Evidence))
		}
	}
	return problems
}

// TestNoLongerBreaksFailsOnAShownFinding: a finding the suite still
// shows, marked unshown, fails the check on its own kept evidence.
func TestNoLongerBreaksFailsOnAShownFinding(t *testing.T) {
	f, err := zoo.LoadFinding(findingsDir, moduleRoot, "stuck-rollout")
	if err != nil {
		t.Fatal(err)
	}
	e, err := evidence.Read(filepath.Join(moduleRoot, f.Evidence))
	if err != nil {
		t.Fatal(err)
	}
	if p := noLongerBreaks(f, e); len(p) == 0 || !strings.Contains(p[0], "no longer shows it") {
		t.Errorf("the stuck rollout, still broken, passes as unshown: %v", p)
	}
}
