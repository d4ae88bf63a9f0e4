package cli

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestParseAll: flags before, between and after the arguments, which
// come back in order; -h is the command's help, a bad flag a usage error.
func TestParseAll(t *testing.T) {
	cmd := New("x", "x [--n N] A...", "about")
	n := cmd.FS.Int("n", 0, "a number")
	rest, err := cmd.ParseAll([]string{"a", "--n", "3", "b", "c"})
	if err != nil || !slices.Equal(rest, []string{"a", "b", "c"}) || *n != 3 {
		t.Errorf("ParseAll = %v, %v, n %d; want [a b c], nil, 3", rest, err, *n)
	}
	var h HelpRequest
	if _, err := cmd.ParseAll([]string{"a", "-h"}); !errors.As(err, &h) {
		t.Errorf("-h after an argument: %v, want the help", err)
	}
	if _, err := cmd.ParseAll([]string{"a", "--m"}); !errors.Is(err, ErrUsage) {
		t.Errorf("an unknown flag: %v, want a usage error", err)
	}
}

// A list given with a former name reads with the current one, item by
// item, before it is checked.
func TestRenamed(t *testing.T) {
	current := func(s string) string {
		if s == "old" {
			return "new"
		}
		return s
	}
	if got := Renamed(" old, a ,old", current); got != "new,a,new" {
		t.Errorf("Renamed = %q", got)
	}
	if got := Renamed("", current); got != "" {
		t.Errorf("Renamed of nothing = %q", got)
	}
	items, err := List("--x", Renamed("old,a", current), "an item", []string{"new", "a"})
	if err != nil || strings.Join(items, ",") != "new,a" {
		t.Errorf("List = %v, %v", items, err)
	}
}
