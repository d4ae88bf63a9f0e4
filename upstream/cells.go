package upstream

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

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
	// Breaks, when set, narrows the bug's properties to those the
	// subject file binds (a property with no binding is not judged).
	Breaks []string
}

// Cells is the upstream matrix.
var Cells = []Cell{
	{Seed: "000/001", Project: "Cluster API", Subject: "cluster-api-v1.9.4", Releases: []string{"cluster-api@v1.9.4", "clusterctl@v1.9.4"}, Suite: "finalizer", Bug: "strip-then-delete"},
	{Seed: "000/001", Project: "Cluster API", Subject: "cluster-api-clusterctl-v1.9.5", Releases: []string{"cluster-api@v1.9.4", "clusterctl@v1.9.5"}, Suite: "finalizer"},
	{Seed: "002", Project: "OpenKruise", Subject: "kruise-v1.8.0-gate-off", Releases: []string{"kruise@v1.8.0"}, Suite: "lostevents", Bug: "expectations-never-expire"},
	{Seed: "002", Project: "OpenKruise", Subject: "kruise-v1.8.0-gate-on", Releases: []string{"kruise@v1.8.0"}, Suite: "lostevents"},
	{Seed: "003", Project: "Crossplane", Subject: "crossplane-v1.15.3", Releases: []string{"crossplane@v1.15.3"}, Suite: "foreground", Bug: "deleting-status-not-persisted",
		// (b), the blocker named, is not bound: Crossplane names no
		// blocker in either release (its own issue, not fixed by #5425).
		Breaks: []string{catalog.FgDeletingStatus.ID}},
	{Seed: "003", Project: "Crossplane", Subject: "crossplane-v1.16.0", Releases: []string{"crossplane@v1.16.0"}, Suite: "foreground"},
	{Seed: "004", Project: "controller-runtime", Subject: "controller-runtime-v0.17.2", Releases: []string{"controller-runtime@v0.17.2"}, Suite: "leader", Bug: "start-leader-runnables-on-shutdown"},
	{Seed: "004", Project: "controller-runtime", Subject: "controller-runtime-v0.17.3", Releases: []string{"controller-runtime@v0.17.3"}, Suite: "leader"},
}

// Matrix is the cell as a matrix cell of the self-test's kind, its subject
// file taken from the repository at root.
func (c Cell) Matrix(root string) (reports.Cell, error) {
	// A subject file binds what its controller has; a spec that needs
	// more skips (the reason is in the report).
	m := reports.Cell{Suite: c.Suite, Subject: c.Subject, SubjectFile: filepath.Join(root, SubjectDir, c.Subject+".yaml"), MaySkip: true}
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
	if c.Breaks != nil {
		for _, id := range c.Breaks {
			if !slices.Contains(b.Breaks, id) {
				return m, fmt.Errorf("upstream cell %s: %s is not among what bug %s breaks (%s)", c.Subject, id, c.Bug, strings.Join(b.Breaks, ", "))
			}
		}
		b.Breaks = c.Breaks
	}
	m.Bug = &b
	return m, nil
}
