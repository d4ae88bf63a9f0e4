package html

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/reports"
)

// MatrixFile is the matrix a matrix run keeps in its folder: its cells
// ([]reports.Cell), each with its runs' verdicts.
const MatrixFile = "matrix.json"

// heading names the page: what was tested, which run, and the result.
type heading struct {
	// Subject is the subjects the run tested and their modes, "" when
	// the folder does not say (its specs named none).
	Subject string
	// Run is the caller's name for the run and when it started.
	Run string
	// Result is PASSED, PASSED WITH GAPS, NOT PASSED or ERROR, with its detail;
	// "" when the folder holds cells' runs but no matrix to judge them by.
	Result, Detail string
}

// Title is "leader (ignore-lost-lease) — steadystate self-test,
// 2026-11-23 12:55 UTC: PASSED", leaving out what is not known.
func (h heading) Title() string {
	t := h.Run
	if h.Subject != "" {
		t = h.Subject + " — " + t
	}
	if h.Result != "" {
		t += ": " + h.Result
	}
	return t
}

// headingOf is the heading of the run folder root, whose runs are runs
// (all their specs: specs), named title by the caller: one run is judged
// by reports.Result, a matrix by its matrix.json (reports.ConformanceResult).
func headingOf(title, root string, runs []run, specs []verdict.Spec) (heading, error) {
	h := heading{Run: cmp.Or(title, "steadystate")}
	if started := startOf(runs); !started.IsZero() {
		h.Run += ", " + started.UTC().Format("2006-01-02 15:04 MST")
	}
	cells, err := readMatrix(root)
	switch {
	case err != nil:
		return h, err
	case cells != nil:
		h.Subject = subjects(cells)
		h.Result, h.Detail = matrixResult(cells)
	case len(runs) == 1 && runs[0].dir == ".":
		h.Subject = specSubjects(specs)
		h.Result, h.Detail = reports.Result(specs)
	}
	return h, nil
}

// specSubjects names the subjects a run's specs ran, "workload (correct),
// leader (ignore-lost-lease)"; "workload, leader, composite, cluster
// (correct)" when they share their mode; else counts them past three.
func specSubjects(specs []verdict.Spec) string {
	var names, modes []string
	for _, s := range specs {
		if s.Subject == "" || slices.Contains(names, s.Subject) {
			continue
		}
		names = append(names, s.Subject)
		if i := strings.LastIndex(s.Subject, " ("); i > 0 && !slices.Contains(modes, s.Subject[i:]) {
			modes = append(modes, s.Subject[i:])
		}
	}
	switch {
	case len(names) > 1 && len(names) <= 5 && len(modes) == 1:
		for i := range names {
			names[i] = strings.TrimSuffix(names[i], modes[0])
		}
		return strings.Join(names, ", ") + modes[0]
	case len(names) > 3:
		return fmt.Sprintf("%d subjects", len(names))
	}
	return strings.Join(names, ", ")
}

func startOf(runs []run) time.Time {
	var first time.Time
	for _, r := range runs {
		if first.IsZero() || (!r.started.IsZero() && r.started.Before(first)) {
			first = r.started
		}
	}
	return first
}

// readMatrix reads root's matrix.json; nil, nil when it has none.
func readMatrix(root string) ([]reports.Cell, error) {
	data, err := os.ReadFile(filepath.Join(root, MatrixFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var cells []reports.Cell
	if err := json.Unmarshal(data, &cells); err != nil {
		return nil, fmt.Errorf("%s is not a matrix's %s: %w (move it away, or write the page of a run folder)", filepath.Join(root, MatrixFile), MatrixFile, err)
	}
	return cells, nil
}

// subjects names the cells' subjects with their modes, "leader
// (correct, ignore-lost-lease), workload (correct)", or counts them
// when there are more than three.
func subjects(cells []reports.Cell) string {
	var names []string
	modes := map[string][]string{}
	for _, c := range cells {
		if modes[c.Subject] == nil {
			names = append(names, c.Subject)
		}
		if !slices.Contains(modes[c.Subject], c.Mode()) {
			modes[c.Subject] = append(modes[c.Subject], c.Mode())
		}
	}
	if len(names) > 3 {
		return fmt.Sprintf("%d subjects", len(names))
	}
	var parts []string
	for _, n := range names {
		parts = append(parts, n+" ("+strings.Join(modes[n], ", ")+")")
	}
	return strings.Join(parts, ", ")
}

// matrixResult is a matrix's result: a conformance run's is
// reports.ConformanceResult's; a self-test's or an upstream matrix's is
// reports.MatrixResult's: it passes when every cell was as intended (a
// bug mode caught on its properties), and its detail names the cells
// that were not.
func matrixResult(cells []reports.Cell) (word, detail string) {
	if slices.ContainsFunc(cells, func(c reports.Cell) bool { return c.Conformance }) {
		return reports.ConformanceResult(cells)
	}
	return reports.MatrixResult(cells)
}
