package layout

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/design.md's layout table from Folders")

// root is the module's root, from this package's folder.
const root = "../.."

// goList runs `go list` in the module's root with args and returns its
// output's lines.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// TestFoldersImportDownward checks every import between two top-level
// folders (not tests' imports) against Folders: it must go to a lower
// floor. No cycle between folders can then exist.
func TestFoldersImportDownward(t *testing.T) {
	module := goList(t, "-m")[0]
	top := func(pkg string) (string, bool) {
		rest, ok := strings.CutPrefix(pkg, module+"/")
		if !ok {
			return "", false
		}
		folder, _, _ := strings.Cut(rest, "/")
		return folder, true
	}
	packages := 0
	for _, line := range goList(t, "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...") {
		fields := strings.Fields(line)
		from, ok := top(fields[0])
		if !ok {
			continue
		}
		packages++
		fromFloor, known := FloorOf(from)
		if !known {
			t.Errorf("%s is in folder %s/, which Folders does not name: give it a floor and a row in internal/layout", fields[0], from)
			continue
		}
		for _, imp := range fields[1:] {
			to, ok := top(imp)
			if !ok || to == from {
				continue
			}
			toFloor, known := FloorOf(to)
			if known && toFloor < fromFloor {
				continue
			}
			t.Errorf("%s (%s/, floor %d) imports %s (%s/, floor %d): a folder imports only folders on lower floors (internal/layout)",
				fields[0], from, fromFloor, imp, to, toFloor)
		}
	}
	if packages < 50 {
		t.Fatalf("go list found %d packages of %s: fewer than the module holds", packages, module)
	}
}

// TestLayersInsideAFolder checks the imports between the packages of a
// folder that Layers orders: each goes to a package named before it.
func TestLayersInsideAFolder(t *testing.T) {
	module := goList(t, "-m")[0] + "/"
	for folder, layers := range Layers {
		for _, line := range goList(t, "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./"+folder+"/...") {
			fields := strings.Fields(line)
			from := slices.Index(layers, strings.TrimPrefix(fields[0], module))
			if from < 0 {
				continue
			}
			for _, imp := range fields[1:] {
				to := slices.Index(layers, strings.TrimPrefix(imp, module))
				if to >= from {
					t.Errorf("%s imports %s: inside %s/ a package imports only those named before it in Layers (%s)", fields[0], imp, folder, strings.Join(layers, ", "))
				}
			}
		}
	}
}

// TestFoldersExist checks every row of Folders names a folder of the
// module.
func TestFoldersExist(t *testing.T) {
	floors := map[string]int{}
	for _, f := range Folders {
		if st, err := os.Stat(filepath.Join(root, f.Path)); err != nil || !st.IsDir() {
			t.Errorf("Folders names %s, which is not a folder of the module", f.Path)
		}
		topFolder, _, below := strings.Cut(f.Path, "/")
		if !below {
			floors[topFolder] = f.Floor
			continue
		}
		if floor, ok := floors[topFolder]; !ok || floor != f.Floor {
			t.Errorf("Folders' row %s must come after its top folder's, on the same floor", f.Path)
		}
	}
}

// TestOfflineCommandsLinkNoGinkgo checks that the packages behind the
// commands that read what a run wrote (report, junit, html, validate,
// verify, results) link neither Ginkgo's test runner nor Gomega: only
// Ginkgo's report types.
func TestOfflineCommandsLinkNoGinkgo(t *testing.T) {
	offline := []string{"./internal/cli", "./runs/matrix", "./runs/rejudge", "./reports/..."}
	for _, dep := range goList(t, append([]string{"-deps"}, offline...)...) {
		if dep == "github.com/onsi/ginkgo/v2" || dep == "github.com/onsi/gomega" {
			t.Errorf("the offline commands' packages (%s) link %s: keep the suites' harness out of them", strings.Join(offline, " "), dep)
		}
	}
}

func TestLayoutTableIsTheFolders(t *testing.T) {
	path := filepath.Join(root, Page)
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Splice(page)
	if err != nil {
		t.Fatalf("%s: %v", Page, err)
	}
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(page, want) {
		t.Errorf("%s's layout table is stale: run `make docs` to regenerate it from internal/layout", Page)
	}
}

func TestSpliceNeedsTheMarkers(t *testing.T) {
	if _, err := Splice([]byte("# no table\n")); err == nil {
		t.Fatal("Splice of a page without markers: no error")
	}
	got, err := Splice([]byte("a\n" + begin + "old\n" + end + "\nb\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "a\n" + begin + Table() + end + "\nb\n"; string(got) != want {
		t.Errorf("Splice wrote %q, want %q", got, want)
	}
}
