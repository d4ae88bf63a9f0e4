package upstream

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/subjectfile"
)

// writeFile writes a file of a test's set-up, and the folders it is in,
// failing the test if it cannot.
func writeFile(t *testing.T, path string, data []byte, perm os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, perm); err != nil {
		t.Fatal(err)
	}
}

// stubUpstream is a stand-in for what upstream-bins makes, so the cells'
// subject files can be read.
func stubUpstream(t *testing.T) string {
	t.Helper()
	up := t.TempDir()
	for _, r := range Releases {
		writeFile(t, filepath.Join(up, r.Name, r.Binary), []byte("#!/bin/sh\n"), 0o755)
		for _, c := range r.Copy {
			writeFile(t, filepath.Join(up, r.Name, c.To, "a.yaml"), []byte("kind: X\n"), 0o644)
		}
	}
	return up
}

func cell(t *testing.T, subject string) Cell {
	t.Helper()
	i := slices.IndexFunc(Cells, func(c Cell) bool { return c.Subject == subject })
	if i < 0 {
		t.Fatalf("no upstream cell %s", subject)
	}
	return Cells[i]
}

// TestExpectedFollowsTheBindings: a buggy cell expects exactly the bug's
// properties its subject file binds, read from the file: Crossplane's
// file binds no blockerMessage, so (b) is not expected; the same file
// with one expects it too; a file that binds none of the bug's
// properties is refused.
func TestExpectedFollowsTheBindings(t *testing.T) {
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	o := subjectfile.Options{UpstreamDir: stubUpstream(t)}
	crossplane := cell(t, "crossplane-v1.15.3")
	m, _, err := crossplane.Matrix(root, o)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{catalog.FgDeletingStatus.ID}; !slices.Equal(m.Bug.Breaks, want) {
		t.Errorf("crossplane-v1.15.3 expects %v, want %v (its file binds no blockerMessage)", m.Bug.Breaks, want)
	}

	// The same file, binding a blocker message, in a checkout of its own.
	other := t.TempDir()
	dir := filepath.Join(other, SubjectDir)
	for _, name := range []string{"crossplane-v1.15.3.yaml", "crossplane-setup.yaml"} {
		data, err := os.ReadFile(filepath.Join(root, SubjectDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "crossplane-v1.15.3.yaml" {
			data = []byte(strings.Replace(string(data), "    block:\n", "    blockerMessage: \"{{.Name}}\"\n    block:\n", 1))
		}
		writeFile(t, filepath.Join(dir, name), data, 0o644)
	}
	m, f, err := crossplane.Matrix(other, o)
	if err != nil {
		t.Fatal(err)
	}
	if f.Capabilities.ForegroundComposite.BlockerMessage == "" {
		t.Fatal("the edited file binds no blockerMessage: the test's edit missed")
	}
	if want := []string{catalog.FgDeletingStatus.ID, catalog.FgBlockerNamed.ID}; !slices.Equal(m.Bug.Breaks, want) {
		t.Errorf("with a blockerMessage the cell expects %v, want %v", m.Bug.Breaks, want)
	}

	crossplane.Bug = "no-blocking-reason" // breaks (b) only
	_, _, err = crossplane.Matrix(root, o)
	if err == nil || !strings.Contains(err.Error(), "binds none of what bug no-blocking-reason breaks") || !strings.Contains(err.Error(), "capabilities.foregroundComposite.blockerMessage") {
		t.Errorf("err = %v, want the cell refused, naming the missing binding", err)
	}
}

// TestUnboundNamesWhatIsMissing: a property of a suite whose capability
// the file does not bind is unbound, named by the capability.
func TestUnboundNamesWhatIsMissing(t *testing.T) {
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	_, f, err := cell(t, "controller-runtime-v0.17.2").Matrix(root, subjectfile.Options{UpstreamDir: stubUpstream(t)})
	if err != nil {
		t.Fatal(err)
	}
	if got := Unbound(f, catalog.LeaderOneWriter.ID); got != "" {
		t.Errorf("only-holder-writes unbound (%s) on a leaderElected file", got)
	}
	if got := Unbound(f, catalog.FinP1.ID); got != "capabilities.movableResource" {
		t.Errorf("P1 on a leaderElected file: unbound = %q, want capabilities.movableResource", got)
	}
}

// TestCheckRefusesAnEmptyOrOneSidedMatrix: no cell, or one release of a
// seed's pair without the other, is refused; whole pairs are not.
func TestCheckRefusesAnEmptyOrOneSidedMatrix(t *testing.T) {
	buggy, fixed := cell(t, "controller-runtime-v0.17.2"), cell(t, "controller-runtime-v0.17.3")
	cases := []struct {
		cells []Cell
		want  string
	}{
		{nil, "no upstream cell to run"},
		{[]Cell{buggy}, "upstream cell controller-runtime-v0.17.2 (seed 004, the release with the bug) cannot run without controller-runtime-v0.17.3 (the release with the fix)"},
		{[]Cell{fixed}, "upstream cell controller-runtime-v0.17.3 (seed 004, the release with the fix) cannot run without controller-runtime-v0.17.2 (the release with the bug)"},
		{[]Cell{fixed, cell(t, "kruise-v1.8.0-gate-off"), buggy}, "kruise-v1.8.0-gate-off (seed 002, the release with the bug) cannot run without kruise-v1.8.0-gate-on"},
		{[]Cell{buggy, fixed}, ""},
		{Cells, ""},
	}
	for _, tc := range cases {
		err := Check(tc.cells)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Check(%d cells) = %v, want nil", len(tc.cells), err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("Check(%d cells) = %v, want %q", len(tc.cells), err, tc.want)
		}
	}
}

// On local the two Crossplane releases, which bind :8080 and :8081 with
// no flag to move them, never run at once; in pods on kind they may, and
// so may every other pair.
func TestOnlyCellsWithFixedPortsAreKeptApart(t *testing.T) {
	var crossplane [][]string
	for _, c := range Cells {
		local := c.exclusive("local")
		if kind := c.exclusive("kind"); len(kind) > 0 {
			t.Errorf("cell %s holds %q on kind", c.Subject, kind)
		}
		if c.Project == "Crossplane" {
			crossplane = append(crossplane, local)
		} else if len(local) > 0 {
			t.Errorf("cell %s holds %q on local, though its flags move its ports", c.Subject, local)
		}
	}
	if len(crossplane) != 2 || len(crossplane[0]) == 0 || !slices.Equal(crossplane[0], crossplane[1]) {
		t.Errorf("the Crossplane cells hold %q on local, want the same fixed ports each", crossplane)
	}
}

// TestNamedTakesANameAloneForEachVersion: upstream-bins builds the
// releases named; a name without its version stands for each version of
// it, once however often named, and an unknown one is refused, naming
// the known.
func TestNamedTakesANameAloneForEachVersion(t *testing.T) {
	names := func(rs []Release) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Name)
		}
		return out
	}
	got, err := Named([]string{"controller-runtime", "controller-runtime@v0.17.3", ChaosMesh})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"controller-runtime@v0.17.2", "controller-runtime@v0.17.3", ChaosMesh}; !slices.Equal(names(got), want) {
		t.Errorf("Named: %v, want %v", names(got), want)
	}
	if all, err := Named(nil); err != nil || len(all) != len(Releases) {
		t.Errorf("Named(nil): %d releases, %v; want all %d", len(all), err, len(Releases))
	}
	for _, bad := range []string{"controller-runtime@v9", "controller"} {
		if _, err := Named([]string{bad}); err == nil || !strings.Contains(err.Error(), "not an upstream release; known: controller-runtime@v0.17.2") {
			t.Errorf("Named(%q): %v, want it refused naming the known releases", bad, err)
		}
	}
}
