package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/steadystate-dev/steadystate/reports"
)

// matrixRun runs the cells of a matrix (the self-test's or the upstream
// one's), each repeat times, parallel at a time, each run in its own
// folder below root with its own cluster.
type matrixRun struct {
	name             string // prefix of progress lines
	title            string // of the printed matrix
	root             string
	refctl           string // built when a cell runs a reference subject
	repeat, parallel int
	provider         string
	// progress prints each run's specs and faults as they happen.
	progress bool
	// env is added to every run's environment: what the run's settings
	// resolved (an absolute UPSTREAM_DIR) must reach each suite, which
	// runs in its own folder.
	env []string
}

// newMatrixRun reads a matrix's run settings once from the environment:
// <prefix>_REPEAT (default 1) and <prefix>_PARALLEL (default parallel),
// PROVIDER, and ARTIFACTS (the runs go below ARTIFACTS/<name>).
func newMatrixRun(name, title, prefix string, parallel int) (matrixRun, error) {
	e := env()
	m := matrixRun{name: name, title: title, repeat: 1, parallel: parallel, provider: e.Provider}
	var err error
	if v := e.Matrix[prefix].Repeat; v != "" {
		if m.repeat, err = positive(prefix+"_REPEAT", v); err != nil {
			return m, err
		}
	}
	if v := e.Matrix[prefix].Parallel; v != "" {
		if m.parallel, err = positive(prefix+"_PARALLEL", v); err != nil {
			return m, err
		}
	}
	m.root, err = filepath.Abs(filepath.Join(e.Artifacts, name))
	return m, err
}

// matrixFlags are a matrix command's --repeat and --parallel, whose
// defaults are <prefix>_REPEAT and <prefix>_PARALLEL.
type matrixFlags struct {
	prefix           string
	repeat, parallel string
}

// addMatrixFlags adds --repeat and --parallel to c; parallel is the
// default when <prefix>_PARALLEL is not set.
func addMatrixFlags(c flagCommand, prefix string, parallel int) *matrixFlags {
	me := env().Matrix[prefix]
	f := &matrixFlags{prefix: prefix, repeat: cmp.Or(me.Repeat, "1"), parallel: cmp.Or(me.Parallel, strconv.Itoa(parallel))}
	c.fs.StringVar(&f.repeat, "repeat", f.repeat, "run each cell `N` times ("+prefix+"_REPEAT)")
	c.fs.StringVar(&f.parallel, "parallel", f.parallel, "run `N` cells at a time, each with its own cluster ("+prefix+"_PARALLEL)")
	return f
}

// matrixRun is the run the flags of c set up (see newMatrixRun).
func (f *matrixFlags) matrixRun(c flagCommand, name, title string) (matrixRun, error) {
	m, err := newMatrixRun(name, title, "", 1)
	if err != nil {
		return m, err
	}
	if m.repeat, err = positive(c.source("repeat", f.prefix+"_REPEAT"), f.repeat); err != nil {
		return m, err
	}
	m.parallel, err = positive(c.source("parallel", f.prefix+"_PARALLEL"), f.parallel)
	return m, err
}

// runAll builds what the cells need, runs them, prints the matrix and
// the figures the runs measured, and keeps the matrix as matrix.json. ok
// says whether every cell was as intended.
func (m matrixRun) runAll(ctx context.Context, cells []reports.Cell, stdout, stderr io.Writer) (ok bool, err error) {
	start := time.Now()
	if m.refctl, err = buildRefctl(ctx, m.name, cells, filepath.Join(m.root, "bin"), stderr); err != nil {
		return false, err
	}
	if err := m.run(ctx, cells, stderr); err != nil {
		return false, err
	}
	fmt.Fprintf(stdout, "\n%s (%d run(s) per cell, %s in all; details in %s)\n", m.title, m.repeat, time.Since(start).Round(time.Second), m.root)
	ok = reports.PrintMatrix(stdout, m.name, cells)
	fmt.Fprintln(stdout)
	reports.PrintFigures(stdout, cells)
	if err := writeMatrix(filepath.Join(m.root, "matrix.json"), cells); err != nil {
		return ok, err
	}
	page := filepath.Join(m.root, "report.html")
	if err := writePage(m.root, page, "steadystate "+m.title); err != nil {
		return ok, err
	}
	fmt.Fprintf(stdout, "%s: report page %s\n", m.name, page)
	return ok, nil
}

// run fills in each cell's Runs, printing a line per finished run. When
// ctx ends, every running suite is interrupted and run returns an error.
func (m matrixRun) run(ctx context.Context, cells []reports.Cell, stderr io.Writer) error {
	type job struct{ cell, n int }
	var jobs []job
	for _, i := range longestFirst(cells) {
		for n := 1; n <= m.repeat; n++ {
			jobs = append(jobs, job{i, n})
		}
	}
	fmt.Fprintf(stderr, "%s: %d cell(s) x %d run(s), %d at a time; artifacts in %s\n", m.name, len(cells), m.repeat, m.parallel, m.root)
	var (
		mu   sync.Mutex
		done int
		next = make(chan job)
		wg   sync.WaitGroup
	)
	for w := range m.parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				c := &cells[j.cell]
				// Runs is appended to under mu; the run needs only the
				// cell's identity, which never changes.
				id := reports.Cell{Suite: c.Suite, Subject: c.Subject, SubjectFile: c.SubjectFile, Bug: c.Bug, MaySkip: c.MaySkip, Conformance: c.Conformance}
				dir := filepath.Join(m.root, id.Suite, id.Subject+"-"+id.Mode(), strconv.Itoa(j.n))
				r := runCell(ctx, m.cellRun(id, dir, w, stderr))
				mu.Lock()
				done++
				c.Runs = append(c.Runs, r)
				kind, detail := c.Judge(r)
				if detail != "" {
					kind += ": " + detail
				}
				fmt.Fprintf(stderr, "%s: [%d/%d] %s x %s/%s run %d: %s in %s (seed %d; %s)\n", m.name, done, len(jobs), c.Suite, c.Subject, c.Mode(), j.n, kind, r.Took.Round(100*time.Millisecond), r.Seed, dir)
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		select {
		case next <- j:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(next)
	wg.Wait()
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: every suite run was stopped; %d of %d run(s) finished (%w)", done, len(jobs), ctx.Err())
	}
	return nil
}
