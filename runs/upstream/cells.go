package upstream

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/reports"
	"github.com/steadystate-dev/steadystate/subjectfile"
)

// SubjectDir is where the cells' subject files live, in this repository.
const SubjectDir = "fixtures/upstream"

// Cell is one upstream release, with its settings, run through its
// subject file by the suite of its seed: the release with the bug must
// break exactly what the seed's reference bug breaks, the release with the
// fix must pass.
type Cell struct {
	// Seed is the seed's number in the design's bug classes.
	Seed, Project string
	// Subject is the subject file's name in SubjectDir, without .yaml.
	Subject string
	// Releases are the builds the subject file runs.
	Releases []string
	Suite    string
	// Bug is the seed's reference bug, whose properties the buggy
	// release must break, exactly those its subject file binds (a
	// property with no binding is not judged); empty for the release
	// with the fix.
	Bug string
	// LocalPorts are ports the release listens on whatever its flags
	// say: on the local provider, where the releases run as processes
	// of one host, two cells that share one never run at the same time
	// (in pods, on kind, each has its own).
	LocalPorts []string
}

// exclusive is what the cell holds on the host on provider, for
// reports.Cell.Exclusive: its fixed ports on local, nothing in pods.
func (c Cell) exclusive(provider string) []string {
	if provider == "kind" {
		return nil
	}
	var keys []string
	for _, port := range c.LocalPorts {
		keys = append(keys, "port "+port)
	}
	return keys
}

// Cells is the upstream matrix.
var Cells = []Cell{
	{Seed: "000/001", Project: "Cluster API", Subject: "cluster-api-v1.9.4", Releases: []string{"cluster-api@v1.9.4", "clusterctl@v1.9.4"}, Suite: "finalizer", Bug: "strip-then-delete"},
	{Seed: "000/001", Project: "Cluster API", Subject: "cluster-api-clusterctl-v1.9.5", Releases: []string{"cluster-api@v1.9.4", "clusterctl@v1.9.5"}, Suite: "finalizer"},
	{Seed: "002", Project: "OpenKruise", Subject: "kruise-v1.8.0-gate-off", Releases: []string{"kruise@v1.8.0"}, Suite: "lostevents", Bug: "expectations-never-expire"},
	{Seed: "002", Project: "OpenKruise", Subject: "kruise-v1.8.0-gate-on", Releases: []string{"kruise@v1.8.0"}, Suite: "lostevents"},
	// (b), the blocker named, is not bound (no blockerMessage): Crossplane
	// names no blocker in either release (its own issue, not fixed by
	// #5425), so the cell expects (a) only.
	// Both releases bind :8080 (metrics) and :8081 (health probes),
	// which no flag of theirs moves.
	{Seed: "003", Project: "Crossplane", Subject: "crossplane-v1.15.3", Releases: []string{"crossplane@v1.15.3"}, Suite: "foreground", Bug: "deleting-status-not-persisted", LocalPorts: []string{":8080", ":8081"}},
	{Seed: "003", Project: "Crossplane", Subject: "crossplane-v1.16.0", Releases: []string{"crossplane@v1.16.0"}, Suite: "foreground", LocalPorts: []string{":8080", ":8081"}},
	{Seed: "004", Project: "controller-runtime", Subject: "controller-runtime-v0.17.2", Releases: []string{"controller-runtime@v0.17.2"}, Suite: "leader", Bug: "start-leader-runnables-on-shutdown"},
	{Seed: "004", Project: "controller-runtime", Subject: "controller-runtime-v0.17.3", Releases: []string{"controller-runtime@v0.17.3"}, Suite: "leader"},
}

// Matrix is the cell as a matrix cell of the self-test's kind, its subject
// file taken from the repository at root and read with o, and the file.
// A buggy release must break exactly the bug's properties that its
// subject file binds.
func (c Cell) Matrix(root string, o subjectfile.Options) (reports.Cell, *subjectfile.File, error) {
	// A subject file binds what its controller has; a spec that needs
	// more skips (the reason is in the report).
	m := reports.Cell{Suite: c.Suite, Subject: c.Subject, SubjectFile: filepath.Join(root, SubjectDir, c.Subject+".yaml"), MaySkip: true}
	f, err := subjectfile.Load(m.SubjectFile, o)
	if err != nil {
		return m, nil, fmt.Errorf("upstream cell %s: %w", c.Subject, err)
	}
	if c.Bug == "" {
		return m, f, nil
	}
	b, ok := catalog.Lookup(c.Bug)
	if !ok || b.Suite != c.Suite {
		return m, f, fmt.Errorf("upstream cell %s: %q is no bug of the %s suite in the catalog", c.Subject, c.Bug, c.Suite)
	}
	expected, unbound := Expected(f, b.Breaks)
	if len(expected) == 0 {
		return m, f, fmt.Errorf("upstream cell %s: its subject file binds none of what bug %s breaks (%s): it can show nothing", c.Subject, c.Bug, strings.Join(unbound, "; "))
	}
	// The upstream release is the subject: the reference component and
	// subject of the catalog's entry do not apply.
	b.Component, b.Subject, b.Breaks = "", "", expected
	m.Bug = &b
	return m, f, nil
}

// Check refuses a matrix that would pass without showing anything: no
// cell at all, or a seed's release with the bug without its release with
// the fix, or the reverse (a bug shown only against a release that fixes
// it tells whether the suite sees the difference).
func Check(cells []Cell) error {
	if len(cells) == 0 {
		return fmt.Errorf("no upstream cell to run: select at least one seed's pair of cells")
	}
	var seeds []string
	for _, c := range cells {
		if !slices.Contains(seeds, c.Seed) {
			seeds = append(seeds, c.Seed)
		}
	}
	for _, seed := range seeds {
		var with, without, missing []string
		for _, c := range Cells {
			if c.Seed != seed {
				continue
			}
			picked := slices.ContainsFunc(cells, func(p Cell) bool { return p.Subject == c.Subject })
			switch {
			case picked && c.Bug != "":
				with = append(with, c.Subject)
			case picked:
				without = append(without, c.Subject)
			default:
				missing = append(missing, c.Subject)
			}
		}
		switch {
		case len(without) == 0:
			return fmt.Errorf("upstream cell %s (seed %s, the release with the bug) cannot run without %s (the release with the fix): select both", strings.Join(with, ", "), seed, strings.Join(missing, ", "))
		case len(with) == 0:
			return fmt.Errorf("upstream cell %s (seed %s, the release with the fix) cannot run without %s (the release with the bug): select both", strings.Join(without, ", "), seed, strings.Join(missing, ", "))
		}
	}
	return nil
}
