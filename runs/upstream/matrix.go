package upstream

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/steadystate-dev/steadystate/reports"
	"github.com/steadystate-dev/steadystate/subjectfile"
)

// Named are the releases named (all of them when none is), a name without
// "@version" (chaos-mesh) standing for each version of it, in the
// catalog's order; or an error naming the one that is not a release and
// the known ones.
func Named(names []string) ([]Release, error) {
	if len(names) == 0 {
		return Releases, nil
	}
	var releases []Release
	for _, name := range names {
		var found []Release
		for _, r := range Releases {
			if base, _, _ := strings.Cut(r.Name, "@"); r.Name == name || (!strings.Contains(name, "@") && base == name) {
				found = append(found, r)
			}
		}
		if len(found) == 0 {
			var known []string
			for _, r := range Releases {
				known = append(known, r.Name)
			}
			return nil, fmt.Errorf("%q is not an upstream release; known: %s (or a name alone, for each of its versions)", name, strings.Join(known, ", "))
		}
		for _, r := range found {
			if !slices.ContainsFunc(releases, func(o Release) bool { return o.Name == r.Name }) {
				releases = append(releases, r)
			}
		}
	}
	return releases, nil
}

// ModuleRoot is the steadystate module's folder: the wrappers of the
// upstream builds live in it.
func ModuleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && slices.Contains(strings.Fields(string(data)), "github.com/steadystate-dev/steadystate") {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("run this in the steadystate repository (%s is not in it): the upstream builds use its fixtures/upstream folder", wd)
		}
	}
}

// Matrix is the cells named (nil: all) as matrix cells, each expecting
// what its subject file binds: dir holds the built releases, root is the
// module's folder, provider the one the matrix runs on. It refuses a matrix that could pass without showing
// anything: no cell, half a seed's pair, or a cell that cannot run where
// the matrix runs.
func Matrix(names []string, dir, root, provider string) ([]reports.Cell, error) {
	var selected []Cell
	for _, c := range Cells {
		if names == nil || slices.Contains(names, c.Subject) {
			selected = append(selected, c)
		}
	}
	if err := Check(selected); err != nil {
		return nil, err
	}
	builder := Builder{Dir: dir}
	var cells []reports.Cell
	for _, c := range selected {
		for _, name := range c.Releases {
			r, _ := Lookup(name)
			if _, ok := builder.Built(r); !ok {
				return nil, fmt.Errorf("upstream cell %s needs release %s, which is not built in %s: run make upstream-bins (or set UPSTREAM_DIR)", c.Subject, name, dir)
			}
		}
		m, f, err := c.Matrix(root, subjectfile.Options{UpstreamDir: dir})
		if err != nil {
			return nil, err
		}
		if provider == "kind" && f.Run.Pod == nil {
			return nil, fmt.Errorf("upstream cell %s cannot run on kind: its subject file has no run.pod; leave its seed's cells out of the selection, or run on local", c.Subject)
		}
		m.Exclusive = c.exclusive(provider)
		cells = append(cells, m)
	}
	return cells, nil
}
