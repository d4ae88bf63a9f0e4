package matrix

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/internal/proc"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/reports"
)

// CellRun is one run of one cell: what RunCell needs to start it.
type CellRun struct {
	Cell reports.Cell
	// Dir holds the run's artifacts and is the suite's working folder.
	Dir string
	// Identity are the suite's flags naming the cell: its subject, bug
	// or subject file, its artifacts folder, its cluster.
	Identity []string
	// Env is added to this process's environment for the suite: the
	// run's settings, not the cell.
	Env []string
	// Progress, when set, gets a line per spec started and per fault,
	// and one every heartbeat while a spec runs.
	Progress io.Writer
	// StatusOnly prints the suite's status lines and the heartbeat only.
	StatusOnly bool
	// Args are more flags for the suite.
	Args []string
	// Program runs the suite (`program suite NAME ...`); empty: this
	// program.
	Program string
}

// CellRun describes a run of cell c in dir on worker w.
func (m Run) CellRun(c reports.Cell, dir string, worker int, stderr io.Writer) CellRun {
	bug := ""
	if c.Bug != nil {
		bug = c.Bug.Name
	}
	subject := c.Subject
	if c.SubjectFile != "" {
		subject, bug = "", ""
	}
	// Every one is given, empty or not: each replaces its variable, so
	// nothing of this process's environment names another cell.
	id := []string{"-steadystate.subject=" + subject, "-steadystate.bug=" + bug, "-steadystate.subject-file=" + c.SubjectFile,
		"-steadystate.artifacts=" + dir, "-steadystate.refctl=" + m.Refctl}
	if m.Provider == "kind" {
		id = append(id, fmt.Sprintf("-steadystate.kind-cluster=steadystate-%s-%d", m.Name, worker))
	}
	r := CellRun{Cell: c, Dir: dir, Identity: id, Env: m.Env}
	if m.Progress {
		r.Progress = stderr
	}
	return r
}

// RunCell runs one cell's suite in a child process of this program
// (`steadystate suite NAME`, in its own process group) and judges it from
// Ginkgo's JSON report. When ctx ends, the suite is interrupted (SIGINT:
// Ginkgo runs its cleanup) and killed with its group after
// proc.SuiteStopGrace (proc.StartGroup).
func RunCell(ctx context.Context, cr CellRun) reports.Run {
	run := reports.Run{Dir: cr.Dir}
	fail := func(err error) reports.Run {
		run.Err = err.Error()
		return run
	}
	// A fresh folder: nothing a previous run left (its report above
	// all) can be read as this run's.
	if err := os.RemoveAll(cr.Dir); err != nil {
		return fail(fmt.Errorf("empty the run's folder: %w", err))
	}
	if err := os.MkdirAll(cr.Dir, 0o755); err != nil {
		return fail(err)
	}
	self := cr.Program
	if self == "" {
		var err error
		if self, err = os.Executable(); err != nil {
			return fail(fmt.Errorf("find this program to run the suite with: %w", err))
		}
	}
	log, err := os.Create(filepath.Join(cr.Dir, "ginkgo.log"))
	if err != nil {
		return fail(err)
	}
	defer log.Close()
	// The log is created before the suite starts: a report older than
	// it is not this run's (the file system's clock, not this process's).
	opened, err := log.Stat()
	if err != nil {
		return fail(err)
	}
	events, events3, err := os.Pipe()
	if err != nil {
		return fail(err)
	}
	defer events.Close()
	report := filepath.Join(cr.Dir, "report.json")
	args := []string{"-ginkgo.no-color", "-ginkgo.timeout=30m", "-steadystate.progress-fd=3"}
	args = append(append(args, cr.Identity...), cr.Args...)
	cmd := SuiteCommand(self, cr.Cell.Suite, report, args...)
	cmd.Dir = cr.Dir
	cmd.Env = append(cmd.Env, cr.Env...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.ExtraFiles = []*os.File{events3} // fd 3
	start := time.Now()
	wait, err := StartSuite(ctx, cmd)
	events3.Close()
	if err != nil {
		return fail(err)
	}
	followed := make(chan struct{})
	go func() {
		defer close(followed)
		run.PeakMemory = follow(events, cr.Progress, cr.Cell.Suite, start, cr.StatusOnly)
	}()
	// The verdict comes from the report, not the exit code; the exit
	// status explains a missing report.
	waitErr := wait()
	<-followed
	run.Took = time.Since(start)
	if err := freshReport(report, opened.ModTime(), waitErr, log.Name()); err != nil {
		return fail(err)
	}
	reps, err := verdict.ReadReport(report)
	if err != nil {
		return fail(fmt.Errorf("%v; see %s", err, log.Name()))
	}
	if err := WriteJUnit(report, filepath.Join(cr.Dir, "junit.xml")); err != nil {
		return fail(err)
	}
	for _, rep := range reps {
		run.Seed = rep.SuiteConfig.RandomSeed
		run.Specs = append(run.Specs, verdict.Specs(rep)...)
	}
	return run
}

// SuiteCommand is one suite's process: `program suite NAME ARGS...
// -ginkgo.json-report=REPORT`, with this process's environment and the
// run's redaction key (the suite takes the key out of its own
// environment before it starts anything). Every suite of every run
// (the matrix's cells, e2e's suites, exploration's shards) runs so, and
// is started with StartSuite.
func SuiteCommand(program, suite, report string, args ...string) *exec.Cmd {
	cmd := exec.Command(program, append(append([]string{"suite", suite}, args...), "-ginkgo.json-report="+report)...)
	cmd.Env = append(os.Environ(), oracle.KeyEnviron())
	return cmd
}

// StartSuite starts a suite's process in its own process group. When ctx
// ends, the suite is interrupted (SIGINT: Ginkgo runs its cleanup) and
// killed with its group after proc.SuiteStopGrace.
func StartSuite(ctx context.Context, cmd *exec.Cmd) (wait func() error, err error) {
	return proc.StartGroup(ctx, cmd, proc.SuiteStopGrace)
}

// freshReport checks that the suite wrote its report during this run: a
// report missing, or older than the run's log (created just before the
// suite started), is an error naming how the suite exited and the last
// lines of its log.
func freshReport(report string, started time.Time, waitErr error, logPath string) error {
	status := "exit status 0"
	if waitErr != nil {
		status = waitErr.Error()
	}
	why := ""
	switch st, err := os.Stat(report); {
	case err != nil:
		why = "without writing its report " + filepath.Base(report)
	case st.ModTime().Before(started):
		why = fmt.Sprintf("and its report %s is older than the run (written %s, the run started %s)",
			filepath.Base(report), st.ModTime().Format(time.RFC3339Nano), started.Format(time.RFC3339Nano))
	default:
		return nil
	}
	lines := strings.Split(proc.Tail(logPath, 3), "\n")
	for i, l := range lines {
		lines[i] = strconv.Quote(strings.TrimSpace(l))
	}
	return fmt.Errorf("the suite exited (%s) %s; last lines of its log: %s; see %s", status, why, strings.Join(lines, " / "), logPath)
}
