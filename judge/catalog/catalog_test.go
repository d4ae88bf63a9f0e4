package catalog

import (
	"slices"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/judge/verdict"
)

func TestEveryBugBreaksKnownPropertiesOfItsSuite(t *testing.T) {
	suites := map[string][]string{}
	for _, s := range Suites {
		suites[s.Name] = s.Subjects()
	}
	seen := map[string]bool{}
	for _, b := range Bugs {
		if seen[b.Name] {
			t.Errorf("bug %s is listed twice", b.Name)
		}
		seen[b.Name] = true
		if !slices.Contains(suites[b.Suite], b.Subject) {
			t.Errorf("bug %s: suite %q does not test subject %q", b.Name, b.Suite, b.Subject)
		}
		if len(b.Breaks) == 0 || b.Origin == "" {
			t.Errorf("bug %s declares no property or no origin", b.Name)
		}
		for _, id := range b.Breaks {
			p, err := Property(id)
			if err != nil {
				t.Errorf("bug %s: %v", b.Name, err)
				continue
			}
			if p.Suite() != b.Suite || p.Stage == verdict.Assumption {
				t.Errorf("bug %s breaks %s, which is not a convergence or invariant property of suite %s", b.Name, id, b.Suite)
			}
		}
	}
}

func TestPropertyIDsAreUniqueAndNamed(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Properties {
		if seen[p.ID] || p.Suite() == "" || p.Sentence == "" {
			t.Errorf("property %+v: duplicate, or no suite or sentence", p)
		}
		seen[p.ID] = true
	}
	if _, err := Property("nope/x"); err == nil {
		t.Error("an unknown property was found")
	}
}

func TestValidateBug(t *testing.T) {
	if err := ValidateBug("workload", ""); err != nil {
		t.Error(err)
	}
	if err := ValidateBug("workload", "no-expectations"); err != nil {
		t.Error(err)
	}
	if err := ValidateBug("workload", "strip-then-delete"); err == nil || !strings.Contains(err.Error(), "belongs to refctl move") {
		t.Errorf("misplaced bug: %v", err)
	}
	if err := ValidateBug("move", "typo"); err == nil || !strings.Contains(err.Error(), "valid: strip-then-delete") {
		t.Errorf("unknown bug: %v", err)
	}
	if !slices.Equal(BugsOf("move"), []string{"strip-then-delete"}) {
		t.Errorf("BugsOf(move) = %v", BugsOf("move"))
	}
}

func TestEveryPropertyIsDeclarableAsAGinkgoLabel(t *testing.T) {
	for _, p := range Properties {
		l := verdict.Declaration(p.ID)
		if _, err := types.ValidateAndCleanupLabel(l, types.CodeLocation{}); err != nil {
			t.Errorf("%s: its declaration %q is not a Ginkgo label: %v", p.ID, l, err)
		}
		if got := verdict.Declared([]string{l}); len(got) != 1 || got[0] != p.ID {
			t.Errorf("%s: its declaration %q reads back as %v", p.ID, l, got)
		}
	}
}
