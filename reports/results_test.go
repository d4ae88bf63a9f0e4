package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// TestResultsPageHasTheSets fails when the results page's tables drift
// from the result sets they are generated from; with -update (make docs)
// it rewrites them.
func TestResultsPageHasTheSets(t *testing.T) {
	sets, err := ReadResultSets(filepath.Join("..", ResultsDir))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", ResultsPage)
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := SpliceResults(page, sets)
	if err != nil {
		t.Fatalf("%s: %v", ResultsPage, err)
	}
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(page, want) {
		t.Errorf("%s's result tables are stale: run `make docs` to regenerate them from %s", ResultsPage, ResultsDir)
	}
}

func TestNewResultSet(t *testing.T) {
	recovered := func(took string) Run {
		r := rec(catalog.LostCreateRecovered, verdict.Held)
		r.Figures = map[string]string{"recovery": took, "bound": "45s"}
		return run(t, spec("recovers", types.SpecStatePassed, "", r))
	}
	cells := []Cell{
		{Suite: "lostevents", Subject: "workload", Runs: []Run{recovered("40.0s"), recovered("40.1s")}},
		{Suite: "leader", Subject: "leader", Runs: []Run{run(t, spec("one writer", types.SpecStateFailed, "invariant broken", rec(catalog.LeaderOneWriter, verdict.Broken)))}},
	}
	s := NewResultSet("selftest", "make selftest", "abc1234", "2026-11-26", cells)
	if s.Summary != "1 as intended, 1 not" {
		t.Errorf("summary %q", s.Summary)
	}
	if got := s.Rows[0]; got.Runs != 2 || got.Verdict != "passed" || got.Figures != "recovery 40.0s, 40.1s" {
		t.Errorf("row %+v: want 2 runs, passed, the recovery figures without the bound", got)
	}
	md := s.Markdown()
	for _, want := range []string{"`make selftest` at commit abc1234, 2026-11-26: 1 as intended, 1 not.", "| leader | leader | correct | 1 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("the block does not say %q:\n%s", want, md)
		}
	}
}

func TestSpliceResults(t *testing.T) {
	s := ResultSet{Name: "selftest", Command: "make selftest", Commit: "abc1234", Date: "2026-11-26", Summary: "0 as intended, 0 not"}
	page := "# Results\n\n<!-- results:selftest -->\nstale\n<!-- /results:selftest -->\n\nafter\n"
	got, err := SpliceResults([]byte(page), map[string]ResultSet{"selftest": s})
	if err != nil {
		t.Fatal(err)
	}
	if want := "# Results\n\n<!-- results:selftest -->\n" + s.Markdown() + "<!-- /results:selftest -->\n\nafter\n"; string(got) != want {
		t.Errorf("spliced:\n%s\nwant:\n%s", got, want)
	}
	if _, err := SpliceResults([]byte(page), nil); err == nil || !strings.Contains(err.Error(), `block "selftest" has no set`) {
		t.Errorf("a block without its set: %v", err)
	}
	if _, err := SpliceResults([]byte("no blocks"), map[string]ResultSet{"selftest": s}); err == nil || !strings.Contains(err.Error(), "has no block") {
		t.Errorf("a set without its block: %v", err)
	}
}

func TestReadResultSetsRefusesAMisnamedSet(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "upstream.json"), []byte(`{"name":"selftest"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadResultSets(dir); err == nil || !strings.Contains(err.Error(), `want "upstream"`) {
		t.Errorf("a set whose name is not its file's: %v", err)
	}
}

// TestMutationScore: a set with seeded bugs scores each property by the
// bugs declared to break it that were caught on exactly their
// properties; a missed bug lowers its properties' scores.
func TestMutationScore(t *testing.T) {
	s := ResultSet{Rows: []ResultRow{
		{Suite: "reconcile", Subject: "composite", Mode: "correct", Verdict: "passed"},
		{Suite: "reconcile", Subject: "composite", Mode: "status-hot-loop", Verdict: "caught: reconcile/quiescent"},
		{Suite: "reconcile", Subject: "composite", Mode: "skip-changes-on-relist", Verdict: "missed: nothing broken"},
	}}
	got := s.MutationScore()
	for _, want := range []string{
		"1 of 2 seeded bugs caught", "1 of 1 correct modes passed",
		"| `reconcile/quiescent` | 1 | 1 | 100 % |", "| `reconcile/recovers` | 1 | 0 | 0 % |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("score does not say %q:\n%s", want, got)
		}
	}
	if (ResultSet{Rows: []ResultRow{{Mode: "correct", Verdict: "passed"}}}).MutationScore() != "" {
		t.Error("a set with no seeded bug has a score")
	}
}
