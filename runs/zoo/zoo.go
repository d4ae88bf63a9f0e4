package zoo

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/steadystate-dev/steadystate/internal/proc"
	"github.com/steadystate-dev/steadystate/reports"
)

// Config is one zoo run's configuration, read once by its command.
type Config struct {
	// Dir holds the subject files (*.yaml); Subjects, when set, names the
	// ones to run by file stem (deployment for deployment.yaml).
	Dir      string
	Subjects []string
	// Runs is how many times each subject runs.
	Runs int
	// Steadystate is the steadystate program that runs conform and verify.
	Steadystate string
	// Artifacts is where each run's folder goes: <Artifacts>/<subject>/<n>.
	Artifacts string
	// Env is added to every conform run's environment (LOCAL_NODES=on).
	Env []string
	// Capabilities, when set, are the only capabilities whose suites
	// conform runs (its --capabilities); a subject that binds none of
	// them is refused by conform.
	Capabilities []string
	// Parallel is how many conform runs go side by side, a local cluster
	// each (1 when unset): the runs of every subject are taken in order
	// by that many workers.
	Parallel int
}

// Subject is one subject file of the zoo.
type Subject struct {
	Name, File string
}

// Subjects are the subject files of dir, by name, or those of pick (every
// one when pick is empty). A name pick holds that dir lacks is refused,
// naming the valid ones.
func Subjects(dir string, pick []string) ([]Subject, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	var all []Subject
	for _, f := range files {
		all = append(all, Subject{Name: strings.TrimSuffix(filepath.Base(f), ".yaml"), File: f})
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("zoo: no subject file (*.yaml) in %s", dir)
	}
	if len(pick) == 0 {
		return all, nil
	}
	var names []string
	for _, s := range all {
		names = append(names, s.Name)
	}
	var out []Subject
	for _, p := range pick {
		i := slices.Index(names, p)
		if i < 0 {
			return nil, fmt.Errorf("zoo: ZOO_SUBJECTS names %q, which is not a subject of %s; expected some of %s", p, dir, strings.Join(names, ", "))
		}
		out = append(out, all[i])
	}
	return out, nil
}

// Run is one conform run of a subject.
type Run struct {
	N    int
	Dir  string
	Took time.Duration
	// Cells are the suites of the run, read from the bundle's matrix
	// (one run each).
	Cells []reports.Cell
	// Err says why the run left no matrix to read.
	Err string `json:",omitempty"`
	// Verified is what `steadystate verify --digest` said of the bundle:
	// its last line (the result, as conform said it), and whether it
	// accepted it: the bundle intact and its verdicts standing, whatever
	// the result (verify's exit code is the result's: 1 for a finding).
	Verified   string
	VerifiedOK bool
}

// Result is a subject's runs.
type Result struct {
	Subject Subject
	Runs    []Run
}

// Matrix is the zoo's result: every subject's runs, and when and how long.
type Matrix struct {
	Started time.Time
	Took    time.Duration
	Runs    int
	// Parallel is how many conform runs went side by side (their wall
	// times count the others' load on the machine).
	Parallel int `json:",omitempty"`
	Results  []Result
}

var (
	digestLine = regexp.MustCompile(`manifest digest sha256:([0-9a-f]{64})`)
	// acceptedLine is verify's line for a bundle it accepted.
	acceptedLine = regexp.MustCompile(`(?m)^verify: .* is intact and its verdicts stand`)
	// progressLine is a line of conform's progress worth echoing: a
	// suite's spec and fault lines, a finished run, the digest (the rest,
	// the summary included, is in the run's log).
	progressLine = regexp.MustCompile(`^([a-z]+ \[[0-9hms.]+\] |conform: \[|conform: bundle )`)
)

// RunAll runs every subject cfg.Runs times, cfg.Parallel runs at a time
// (one when unset), with numbered progress on progress, and returns the
// matrix; it writes it as zoo.json and zoo.md into cfg.Artifacts as well.
// When ctx ends, no run starts and those under way are interrupted; the
// runs that finished are in the matrix it returns with ctx's error, and
// nothing is written.
func RunAll(ctx context.Context, cfg Config, subjects []Subject, progress io.Writer) (*Matrix, error) {
	m := &Matrix{Started: time.Now(), Runs: cfg.Runs}
	progress = &proc.SyncWriter{W: progress}
	type slot struct {
		subject, n int
		tag, dir   string
	}
	runs := make([][]*Run, len(subjects))
	var queue []slot
	for i, s := range subjects {
		runs[i] = make([]*Run, cfg.Runs)
		for n := 1; n <= cfg.Runs; n++ {
			queue = append(queue, slot{subject: i, n: n,
				dir: filepath.Join(cfg.Artifacts, s.Name, fmt.Sprint(n))})
		}
	}
	for k := range queue {
		q := &queue[k]
		q.tag = fmt.Sprintf("[%d/%d] %s run %d/%d", k+1, len(queue), subjects[q.subject].Name, q.n, cfg.Runs)
	}
	workers := min(max(cfg.Parallel, 1), len(queue))
	if workers > 1 {
		m.Parallel = workers
	}
	next := make(chan slot)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for q := range next {
				if ctx.Err() != nil {
					continue // ended while the slot was handed over: not started
				}
				fmt.Fprintf(progress, "%s: conform (artifacts %s)\n", q.tag, q.dir)
				r := runOnce(ctx, cfg, subjects[q.subject], q.n, q.dir, q.tag, progress)
				fmt.Fprintf(progress, "%s: %s in %s; verify: %s\n", q.tag, runVerdict(r), r.Took.Round(time.Second), r.Verified)
				// A run the end interrupted says nothing; one whose
				// bundle verify accepted had finished.
				if ctx.Err() == nil || r.VerifiedOK {
					runs[q.subject][q.n-1] = &r
				}
			}
		}()
	}
	for _, q := range queue {
		if ctx.Err() != nil {
			break
		}
		select {
		case next <- q:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	for i, s := range subjects {
		res := Result{Subject: s}
		for _, r := range runs[i] {
			if r != nil {
				res.Runs = append(res.Runs, *r)
			}
		}
		if len(res.Runs) > 0 || ctx.Err() == nil {
			m.Results = append(m.Results, res)
		}
	}
	m.Took = time.Since(m.Started)
	if ctx.Err() != nil {
		return m, ctx.Err()
	}
	return m, m.write(cfg.Artifacts)
}

// runOnce runs conform on s in dir, then verify on its bundle.
func runOnce(ctx context.Context, cfg Config, s Subject, n int, dir, tag string, progress io.Writer) Run {
	r := Run{N: n, Dir: dir}
	if err := os.RemoveAll(dir); err != nil {
		r.Err = err.Error()
		return r
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.Err = err.Error()
		return r
	}
	bundle := filepath.Join(dir, "conformance.tar.gz")
	logPath := filepath.Join(dir, "conform.log")
	start := time.Now()
	args := []string{"conform", "--subject", s.File, "--provider", "local", "--out", bundle}
	if len(cfg.Capabilities) > 0 {
		args = append(args, "--capabilities", strings.Join(cfg.Capabilities, ","))
	}
	out, err := runLogged(ctx, logPath, cfg, "  "+tag+" | ", progress, args...)
	r.Took = time.Since(start)
	cells, rerr := readMatrix(filepath.Join(dir, "conform", "matrix.json"))
	switch {
	case rerr != nil && err != nil:
		r.Err = fmt.Sprintf("conform failed (%v) and left no matrix: see %s", err, logPath)
		return r
	case rerr != nil:
		r.Err = fmt.Sprintf("conform left no matrix (%v): see %s", rerr, logPath)
		return r
	}
	r.Cells = cells
	d := digestLine.FindStringSubmatch(out)
	if d == nil {
		r.Verified = "no digest in the conform log: bundle not checked"
		return r
	}
	vout, verr := runLogged(ctx, filepath.Join(dir, "verify.log"), cfg, "", io.Discard, "verify", "--digest", d[1], bundle)
	r.Verified = strings.TrimPrefix(lastLine(vout), "verify: ")
	r.VerifiedOK = acceptedLine.MatchString(vout)
	if !r.VerifiedOK {
		r.Verified = fmt.Sprintf("REFUSED (%v): %s", verr, r.Verified)
	}
	return r
}

// stopGrace is how long an interrupted steadystate run has to stop what
// it started before it is killed.
const stopGrace = 2 * time.Minute

// runLogged runs steadystate with args, its output into logPath and
// (each line after prefix) into progress, and returns the output.
func runLogged(ctx context.Context, logPath string, cfg Config, prefix string, progress io.Writer, args ...string) (string, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return "", err
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, cfg.Steadystate, args...)
	// Ended early (Ctrl-C, SIGTERM), a run is interrupted, not killed: it
	// stops its cluster and the subject itself; killed only if it has not
	// within stopGrace. Killed with this process, it goes with it.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = stopGrace
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Env = append(append(os.Environ(), "ARTIFACTS="+filepath.Dir(logPath)), cfg.Env...)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	var all strings.Builder
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(f, line)
			all.WriteString(line + "\n")
			if progressLine.MatchString(line) {
				fmt.Fprintln(progress, prefix+line)
			}
		}
		_, _ = io.Copy(io.Discard, pr) // drain, so the command never blocks on a full pipe
	}()
	err = cmd.Run()
	pw.Close()
	<-done
	return all.String(), err
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func readMatrix(path string) ([]reports.Cell, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cells []reports.Cell
	if err := json.Unmarshal(data, &cells); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(cells) == 0 {
		return nil, errors.New(path + " holds no suite")
	}
	return cells, nil
}

// runVerdict is one run's verdict over its suites: the worst of them.
func runVerdict(r Run) string {
	if r.Err != "" {
		return reports.Error + " (" + r.Err + ")"
	}
	var parts []string
	for _, c := range r.Cells {
		for _, run := range c.Runs {
			kind, detail := c.Judge(run)
			if kind == reports.Passed || kind == reports.PassedWithGaps {
				parts = append(parts, c.Suite+" "+kind)
				continue
			}
			parts = append(parts, fmt.Sprintf("%s %s (%s)", c.Suite, kind, detail))
		}
	}
	return strings.Join(parts, "; ")
}
