package upstream

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/subjectfile"
)

// TestRefusedVersionSaysWhatToDo: a version the module proxy does not
// serve stops the build with the module, the version and the two ways
// out, and leaves no folder behind.
func TestRefusedVersionSaysWhatToDo(t *testing.T) {
	dir := t.TempDir()
	env := append(os.Environ(), "GOPROXY=off", "GOMODCACHE="+t.TempDir())
	var progress bytes.Buffer
	b := Builder{Dir: dir, Env: env, Progress: &progress}
	r := Release{Name: "nothing@v1.0.0", Module: "example.invalid/nothing", Version: "v1.0.0", Package: ".", Binary: "nothing"}
	err := b.Build(t.Context(), []Release{r})
	if err == nil {
		t.Fatal("a module the proxy cannot serve was built")
	}
	for _, want := range []string{"upstream nothing@v1.0.0", "did not serve example.invalid/nothing@v1.0.0", "GOPROXY", "prebuilt nothing", filepath.Join(dir, "nothing@v1.0.0")} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if !strings.Contains(progress.String(), "[1/1] nothing@v1.0.0: downloading example.invalid/nothing@v1.0.0") {
		t.Errorf("progress = %q, want a numbered step", progress.String())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("a failed build left %v in the upstream folder", entries)
	}
}

// TestBuiltMatchesModuleAndVersion: a stamp of another version, or of a
// binary that is not static, is not a build of this one.
func TestBuiltMatchesModuleAndVersion(t *testing.T) {
	b := Builder{Dir: t.TempDir()}
	r := Releases[0]
	if _, ok := b.Built(r); ok {
		t.Fatal("an empty folder counts as built")
	}
	stamp := `{"module":"` + r.Module + `","version":"v0.0.1","static":true}`
	writeFile(t, filepath.Join(b.Path(r), stampFile), []byte(stamp), 0o644)
	if _, ok := b.Built(r); ok {
		t.Error("a stamp of v0.0.1 counts as a build of " + r.Version)
	}
	stamp = strings.Replace(stamp, "v0.0.1", r.Version, 1)
	writeFile(t, filepath.Join(b.Path(r), stampFile), []byte(strings.Replace(stamp, "true", "false", 1)), 0o644)
	if _, ok := b.Built(r); ok {
		t.Error("a build that is not static counts as built")
	}
	writeFile(t, filepath.Join(b.Path(r), stampFile), []byte(stamp), 0o644)
	if _, ok := b.Built(r); !ok {
		t.Error("a matching stamp does not count as built")
	}
}

func TestReleaseNamesAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Releases {
		if seen[r.Name] {
			t.Errorf("release %s listed twice", r.Name)
		}
		seen[r.Name] = true
		if got, ok := Lookup(r.Name); !ok || got.Version != r.Version {
			t.Errorf("Lookup(%s) = %v, %v", r.Name, got, ok)
		}
	}
}

// TestCellsAreComplete: every cell's subject file exists and reads, its
// releases are in the catalog, its bug is a bug of its suite, and every
// seed has a buggy and a fixed cell.
func TestCellsAreComplete(t *testing.T) {
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	up := stubUpstream(t)
	kinds := map[string]int{}
	for _, c := range Cells {
		_, f, err := c.Matrix(root, subjectfile.Options{UpstreamDir: up})
		if err != nil {
			t.Errorf("cell %s: %v", c.Subject, err)
		} else if f.Name != strings.ReplaceAll(c.Subject, ".", "-") {
			t.Errorf("cell %s: its subject file names itself %s", c.Subject, f.Name)
		}
		for _, name := range c.Releases {
			if _, ok := Lookup(name); !ok {
				t.Errorf("cell %s: release %s is not in Releases", c.Subject, name)
			}
		}
		if c.Bug == "" {
			kinds[c.Seed] |= 1
		} else {
			kinds[c.Seed] |= 2
		}
	}
	for seed, k := range kinds {
		if k != 3 {
			t.Errorf("seed %s has no buggy and fixed pair of cells", seed)
		}
	}
	if _, _, err := (Cell{Subject: "controller-runtime-v0.17.2", Suite: "leader", Bug: "expectations-never-expire"}).Matrix(root, subjectfile.Options{UpstreamDir: up}); err == nil {
		t.Error("a bug of another suite was accepted")
	}
}

func TestLabelYAMLLabelsEveryObject(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.yaml"), []byte("---\nkind: A\nmetadata:\n  name: a\n  labels: {keep: \"1\"}\n---\nkind: B\nmetadata:\n  name: b\n"), 0o644)
	if err := labelYAML(dir, map[string]string{"clusterctl.cluster.x-k8s.io": ""}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "a.yaml"))
	if strings.Count(string(data), "clusterctl.cluster.x-k8s.io: \"\"") != 2 || !strings.Contains(string(data), "keep: \"1\"") {
		t.Errorf("labelled:\n%s", data)
	}
}

// A release links statically (a cgo one through -extldflags=-static and
// the pure-Go resolver and user lookup) and without debug information.
func TestBuildArgsLinkStaticallyWithoutDebugInfo(t *testing.T) {
	for _, r := range []Release{{Package: "./cmd/x"}, {Package: "./cmd/x", Cgo: true}} {
		env, args := buildArgs(r, "/out/x")
		line := strings.Join(args, " ")
		if !strings.Contains(line, "-ldflags -s -w") || !strings.Contains(line, "-gcflags=all=-dwarf=false") {
			t.Errorf("cgo %v: %q links debug information", r.Cgo, line)
		}
		if r.Cgo && (!strings.Contains(line, "-extldflags=-static") || !strings.Contains(line, "-tags netgo,osusergo") ||
			strings.Join(env, " ") != "CGO_ENABLED=1") {
			t.Errorf("cgo release: %q with %q does not link statically", line, env)
		}
		if !r.Cgo && env != nil {
			t.Errorf("pure-Go release: extra environment %q (the Builder's CGO_ENABLED=0 must hold)", env)
		}
		if args[len(args)-1] != r.Package || args[len(args)-2] != "/out/x" {
			t.Errorf("%q does not end in -o /out/x %s", line, r.Package)
		}
	}
}
