package matrix

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/reports"
)

// Run runs the cells of a matrix (the self-test's or the upstream
// one's), each Repeat times, Parallel at a time, each run in its own
// folder below Root with its own cluster.
type Run struct {
	Name     string // prefix of progress lines
	Title    string // of the printed matrix
	Root     string
	Refctl   string // built when a cell runs a reference subject
	Repeat   int
	Parallel int
	Provider string
	// Progress prints each run's specs and faults as they happen.
	Progress bool
	// Env is added to every run's environment: what the run's settings
	// resolved (an absolute UPSTREAM_DIR) must reach each suite, which
	// runs in its own folder.
	Env []string
}

// RunAll builds what the cells need, runs them, prints the matrix and
// the figures the runs measured, and keeps the matrix as matrix.json. ok
// says whether every cell was as intended.
func (m Run) RunAll(ctx context.Context, cells []reports.Cell, stdout, stderr io.Writer) (ok bool, err error) {
	start := time.Now()
	if m.Refctl, err = BuildRefctl(ctx, m.Name, cells, filepath.Join(m.Root, "bin"), stderr); err != nil {
		return false, err
	}
	if err := m.run(ctx, cells, stderr); err != nil {
		return false, err
	}
	fmt.Fprintf(stdout, "\n%s (%d run(s) per cell, %s in all; details in %s)\n", m.Title, m.Repeat, time.Since(start).Round(time.Second), m.Root)
	ok = reports.PrintMatrix(stdout, m.Name, cells)
	fmt.Fprintln(stdout)
	reports.PrintFigures(stdout, cells)
	if err := writeMatrix(filepath.Join(m.Root, "matrix.json"), cells); err != nil {
		return ok, err
	}
	page := filepath.Join(m.Root, "report.html")
	if err := WritePage(m.Root, page, "steadystate "+m.Title); err != nil {
		return ok, err
	}
	fmt.Fprintf(stdout, "%s: report page %s\n", m.Name, page)
	return ok, nil
}

// run fills in each cell's Runs, printing a line per finished run. When
// ctx ends, every running suite is interrupted and run returns an error.
func (m Run) run(ctx context.Context, cells []reports.Cell, stderr io.Writer) error {
	type job struct{ cell, n int }
	var jobs []job
	for _, i := range longestFirst(cells) {
		for n := 1; n <= m.Repeat; n++ {
			jobs = append(jobs, job{i, n})
		}
	}
	fmt.Fprintf(stderr, "%s: %d cell(s) x %d run(s), %d at a time; artifacts in %s\n", m.Name, len(cells), m.Repeat, m.Parallel, m.Root)
	var (
		mu   sync.Mutex
		done int
		wg   sync.WaitGroup
	)
	// Runs whose subjects hold the same thing on the host (a fixed
	// port) never run at once.
	q := newQueue(ctx, jobs, func(j job) []string { return cells[j.cell].Exclusive })
	defer q.close()
	for w := range m.Parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				j, ok := q.take()
				if !ok {
					return
				}
				c := &cells[j.cell]
				// Runs is appended to under mu; the run needs only the
				// cell's identity, which never changes.
				id := reports.Cell{Suite: c.Suite, Subject: c.Subject, SubjectFile: c.SubjectFile, Bug: c.Bug, MaySkip: c.MaySkip, Conformance: c.Conformance}
				dir := filepath.Join(m.Root, id.Suite, id.Subject+"-"+id.Mode(), strconv.Itoa(j.n))
				r := RunCell(ctx, m.CellRun(id, dir, w, stderr))
				q.done(j)
				mu.Lock()
				done++
				c.Runs = append(c.Runs, r)
				kind, detail := c.Judge(r)
				if detail != "" {
					kind += ": " + detail
				}
				fmt.Fprintf(stderr, "%s: [%d/%d] %s x %s/%s run %d: %s in %s (seed %d; %s)\n", m.Name, done, len(jobs), c.Suite, c.Subject, c.Mode(), j.n, kind, r.Took.Round(100*time.Millisecond), r.Seed, dir)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: every suite run was stopped; %d of %d run(s) finished (%w)", done, len(jobs), ctx.Err())
	}
	return nil
}

// longestFirst orders cells so the slow ones start first and the parallel
// runs finish together: a seeded bug the catalog marks Slow, then the
// suites by their usual length (a steady-state cell takes 2 to 4 minutes,
// a lost-events one up to about one, a leader one about 13 s); a suite
// not named here starts last.
func longestFirst(cells []reports.Cell) []int {
	suites := map[string]int{"reconcile": 5, "lostevents": 4, "finalizer": 3, "foreground": 2, "leader": 1}
	weight := func(c reports.Cell) int {
		if c.Bug != nil && c.Bug.Slow {
			return 10
		}
		return suites[c.Suite]
	}
	order := make([]int, len(cells))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return weight(cells[b]) - weight(cells[a]) })
	return order
}

// writeMatrix keeps the matrix as data next to the runs.
func writeMatrix(path string, cells []reports.Cell) error {
	data, err := json.MarshalIndent(cells, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// BuildRefctl compiles refctl once into dir when a cell runs a reference
// subject: the reference controllers are built from this module's source,
// so a self-test needs the checkout; a subject file's cells need nothing.
// name is the command's, for messages.
func BuildRefctl(ctx context.Context, name string, cells []reports.Cell, dir string, stderr io.Writer) (string, error) {
	if !slices.ContainsFunc(cells, func(c reports.Cell) bool { return c.SubjectFile == "" }) {
		return "", nil
	}
	if _, err := os.Stat(filepath.Join("cmd", "refctl")); err != nil {
		return "", cli.Mark(cli.ErrInput, fmt.Errorf("%s runs the reference controllers, which are built from source: run it in the steadystate module's root folder (make %s does)", name, name))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "refctl")
	start := time.Now()
	fmt.Fprintf(stderr, "%s: building refctl\n", name)
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/refctl").CombinedOutput(); err != nil {
		return "", fmt.Errorf("build refctl: %v\n%s", err, out)
	}
	fmt.Fprintf(stderr, "%s: built refctl in %s\n", name, time.Since(start).Round(100*time.Millisecond))
	return bin, nil
}
