package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goTestRE finds a `go test` command in a page, up to the end of its code
// span or line.
var goTestRE = regexp.MustCompile("go test ([^`\n]*)")

// TestGoTestPackagesExist checks that every package a page's `go test`
// command names (./path or ./path/...) is a folder of the module with Go
// files: a package moved or renamed leaves a command that fails with
// "directory not found" for whoever follows the page. The dated pages of
// the hunts' history (docs/zoo/2026-*) keep the paths of their day, and a
// ./pkg/ path is an upstream project's, run in its checkout (a finding's
// fix checked against its own tests): the module has no pkg/ folder.
func TestGoTestPackagesExist(t *testing.T) {
	for _, page := range pages(t) {
		if strings.HasPrefix(filepath.ToSlash(page), "docs/zoo/20") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(data), "\n") {
			for _, m := range goTestRE.FindAllStringSubmatch(line, -1) {
				for _, arg := range strings.Fields(m[1]) {
					if !strings.HasPrefix(arg, "./") || strings.HasPrefix(arg, "./pkg/") {
						continue
					}
					dir := strings.TrimSuffix(strings.TrimSuffix(arg, "..."), "/")
					if dir == "." {
						continue
					}
					if !hasGo(filepath.Join(root, dir), strings.HasSuffix(arg, "...")) {
						t.Errorf("%s:%d: `go test` names %s, which is no package of the module (moved or renamed?)", page, n+1, arg)
					}
				}
			}
		}
	}
}

// hasGo tells whether dir holds Go files, or with below any folder under it.
func hasGo(dir string, below bool) bool {
	found := false
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		switch {
		case err != nil || found:
			return filepath.SkipAll
		case d.IsDir() && p != dir && !below:
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(p, ".go"):
			found = true
		}
		return nil
	})
	return found
}
