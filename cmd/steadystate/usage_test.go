package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/internal/config"
	"github.com/steadystate-dev/steadystate/internal/layout"
)

// TestUsageNamesEveryFlag checks the top-level usage against each
// command's own help: every flag a command takes is in its lines of the
// usage, so that the usage cannot fall behind a flag added later.
func TestUsageNamesEveryFlag(t *testing.T) {
	flagLine := regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`)
	// e2e passes Ginkgo's flags on, which its usage names as a whole.
	if s := cli.Section(usage, "e2e"); !strings.Contains(s, "--artifacts") || !strings.Contains(s, "--parallel") || !strings.Contains(s, "GINKGO FLAGS") {
		t.Errorf("the usage of e2e lacks its flags:\n%s", s)
	}
	for _, args := range [][]string{
		{"cluster", "up"}, {"cluster", "down"}, {"cluster", "status"},
		{"report"}, {"selftest"}, {"conform"}, {"explore"},
		{"campaign", "job"}, {"campaign", "gather"},
		{"verify"}, {"init"}, {"results"}, {"upstream"},
		{"zoo", "run"}, {"zoo", "hunt"}, {"zoo", "repro"},
	} {
		var out, errb bytes.Buffer
		if err := run(context.Background(), config.Settings{}, append(args, "-h"), &out, &errb); err != nil {
			t.Fatalf("%s -h: %v", strings.Join(args, " "), err)
		}
		name := strings.Join(args, " ")
		section := cli.Section(usage, name)
		if section == usage {
			t.Errorf("the usage has no line for %q", name)
			continue
		}
		flags := flagLine.FindAllStringSubmatch(out.String(), -1)
		if len(flags) == 0 {
			t.Errorf("%s -h lists no flags:\n%s", name, out.String())
		}
		for _, f := range flags {
			if !strings.Contains(section, "--"+f[1]) {
				t.Errorf("the usage of %q lacks --%s, which %s -h lists", name, f[1], name)
			}
		}
	}
}

// TestLayoutNamesEveryCommand checks the layout table's row of this
// command (design.md) against the usage: every command the usage lists
// is named there.
func TestLayoutNamesEveryCommand(t *testing.T) {
	var row string
	for _, f := range layout.Folders {
		if f.Path == "cmd/steadystate" {
			row = f.Holds
		}
	}
	if row == "" {
		t.Fatal("the layout has no row for cmd/steadystate")
	}
	commands := regexp.MustCompile(`(?m)^  steadystate ([a-z-]+)`).FindAllStringSubmatch(usage, -1)
	if len(commands) == 0 {
		t.Fatal("the usage lists no command")
	}
	named := map[string]bool{}
	for _, c := range commands {
		if !named[c[1]] && !strings.Contains(row, "`"+c[1]) {
			named[c[1]] = true
			t.Errorf("the layout's row of cmd/steadystate does not name %s, which the usage lists", c[1])
		}
	}
}
