package zoo

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/internal/config"
)

// Bad input to `steadystate zoo` is refused in one line, exit 2, before
// anything runs; help is help.
func TestCommandRefusesBadInput(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "zoo needs run (conform over the subject files), hunt"},
		{[]string{"walk"}, `zoo "walk": use run, hunt, repro or timeline`},
		{[]string{"run", "--runs", "0"}, "--runs 0 (ZOO_RUNS): give a count of 1 or more"},
		{[]string{"run", "--parallel", "0"}, "--parallel 0 (ZOO_PARALLEL): give a count of 1 or more"},
		{[]string{"run", "--subjects", "nosuch"}, "nosuch"},
		{[]string{"run", "extra"}, `zoo run takes flags only, not "extra"`},
		{[]string{"hunt", "--budget", "0s"}, "--budget 0s (HUNT_BUDGET): give a duration above zero"},
		{[]string{"hunt", "--parallel", "0"}, "--parallel 0 (HUNT_PARALLEL)"},
		{[]string{"hunt", "--shared-cluster", "yes"}, `--shared-cluster "yes" (HUNT_SHARED_CLUSTER): give on or off`},
		{[]string{"hunt", "--shared-cluster", "on"}, "give 2 or more"},
		{[]string{"hunt", "--colour", "red"}, "flag provided but not defined: -colour"},
		{[]string{"repro"}, "stuck-rollout"},
		{[]string{"repro", "--finding", "nosuch"}, "stuck-rollout"},
		{[]string{"timeline"}, "zoo timeline takes one evidence file"},
		{[]string{"timeline", "/nonexistent/evidence.json"}, "/nonexistent/evidence.json"},
	} {
		err := Command(t.Context(), config.Settings{}, tc.args, &bytes.Buffer{}, &bytes.Buffer{})
		if code := cli.ExitCode(err); code != cli.ExitUsage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("zoo %v: exit %d, %v; want exit %d saying %q", tc.args, code, err, cli.ExitUsage, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("zoo %v: %q is more than one line", tc.args, err)
		}
	}
	for _, args := range [][]string{{"-h"}, {"--help"}} {
		if err := Command(t.Context(), config.Settings{}, args, &bytes.Buffer{}, &bytes.Buffer{}); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("zoo %v: %v, want help", args, err)
		}
	}
	var h cli.HelpRequest
	if err := Command(t.Context(), config.Settings{}, []string{"hunt", "-h"}, &bytes.Buffer{}, &bytes.Buffer{}); !errors.As(err, &h) || !strings.Contains(h.Text, "-budget") {
		t.Errorf("zoo hunt -h: %v", err)
	}
}

// zoo timeline writes a recorded evidence's timeline as SVG.
func TestCommandTimeline(t *testing.T) {
	file := filepath.Join("..", "..", "judge", "testdata", "explore-deployment-steady-stuck-rollout.json")
	if _, err := os.Stat(file); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Command(t.Context(), config.Settings{}, []string{"timeline", file}, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "<svg") || !strings.HasSuffix(strings.TrimSpace(out.String()), "</svg>") {
		t.Errorf("not an SVG: %.80q", out.String())
	}
}
