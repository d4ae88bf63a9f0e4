package upstream

import (
	"fmt"
	"path/filepath"

	"github.com/steadystate-dev/steadystate/catalog"
	"github.com/steadystate-dev/steadystate/reports"
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
	// Bug is the seed's reference bug, whose exact properties the buggy
	// release must break; empty for the release with the fix.
	Bug string
}

// Cells is the upstream matrix.
var Cells = []Cell{
	{Seed: "002", Project: "OpenKruise", Subject: "kruise-v1.8.0-gate-off", Releases: []string{"kruise@v1.8.0"}, Suite: "lostevents", Bug: "expectations-never-expire"},
	{Seed: "002", Project: "OpenKruise", Subject: "kruise-v1.8.0-gate-on", Releases: []string{"kruise@v1.8.0"}, Suite: "lostevents"},
	{Seed: "004", Project: "controller-runtime", Subject: "controller-runtime-v0.17.2", Releases: []string{"controller-runtime@v0.17.2"}, Suite: "leader", Bug: "start-leader-runnables-on-shutdown"},
	{Seed: "004", Project: "controller-runtime", Subject: "controller-runtime-v0.17.3", Releases: []string{"controller-runtime@v0.17.3"}, Suite: "leader"},
}

// Matrix is the cell as a matrix cell of the self-test's kind, its subject
// file taken from the repository at root.
func (c Cell) Matrix(root string) (reports.Cell, error) {
	m := reports.Cell{Suite: c.Suite, Subject: c.Subject, SubjectFile: filepath.Join(root, SubjectDir, c.Subject+".yaml")}
	if c.Bug == "" {
		return m, nil
	}
	b, ok := catalog.Lookup(c.Bug)
	if !ok || b.Suite != c.Suite {
		return m, fmt.Errorf("upstream cell %s: %q is no bug of the %s suite in the catalog", c.Subject, c.Bug, c.Suite)
	}
	// The upstream release is the subject: the reference component and
	// subject of the catalog's entry do not apply.
	b.Component, b.Subject = "", ""
	m.Bug = &b
	return m, nil
}
