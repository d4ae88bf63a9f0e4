package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/internal/proc"
	"github.com/steadystate-dev/steadystate/runs/matrix"
	"github.com/steadystate-dev/steadystate/suites"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// ReportName is the merged report's name in the artifacts folder.
const ReportName = "report.json"

// Config is one run of the suites.
type Config struct {
	// Program runs a suite: `Program suite NAME FLAGS...`.
	Program string
	// Suites run each as `Program suite NAME`, the long ones
	// (suites.Suite.Long) started first, then the others in this order,
	// which is the merged report's; a suite's title describes a report
	// written for it when it wrote none.
	Suites []suites.Suite
	// Artifacts is the run's folder: the suites' artifacts and
	// ReportName.
	Artifacts string
	// Ginkgo are -ginkgo.* flags for every suite (see GinkgoFlags),
	// SuiteFlags -steadystate.* flags (see CheckSuiteFlags).
	Ginkgo, SuiteFlags []string
	// Stdout and Stderr get the suites' output.
	Stdout, Stderr io.Writer
	// Parallel is how many suites run side by side (at least 1). Each
	// then gets its own cluster name (-steadystate.cluster-name=NAME),
	// so their control planes' logs do not mix, and its output is
	// written whole, in one piece, once it has ended.
	Parallel int
}

// Run runs c's suites, Parallel at a time, the long ones first (StartOrder), and writes
// their reports, merged in c.Suites' order, to Artifacts/report.json. When
// more than one runs at a time, a suite made of parts (suites.Suite.Parts)
// runs as one process per part, its report a suite per part. A suite that exited without writing its report
// is in it as a failed suite naming how it exited. After an interruption
// (ctx done) the suites not yet started are left out. Run reports whether
// every suite ran and passed; err is a report it could not write.
func Run(ctx context.Context, c Config) (passed bool, err error) {
	if err := os.MkdirAll(c.Artifacts, 0o755); err != nil {
		return false, err
	}
	tmp, err := os.MkdirTemp(c.Artifacts, ".e2e-reports-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(tmp)
	procs := processes(c.Suites, c.Parallel)
	reports := make([]string, len(procs))
	ok := make([]bool, len(procs))
	noReport := make([]error, len(procs))
	slots := make(chan struct{}, max(c.Parallel, 1))
	var wg sync.WaitGroup
	var mu sync.Mutex // the suites' whole outputs, one at a time
	of := make([]suites.Suite, len(procs))
	for i, p := range procs {
		of[i] = p.suite
	}
	order := StartOrder(of)
	started := make([]bool, len(procs))
	for n, i := range order {
		p := procs[i]
		slots <- struct{}{}
		if ctx.Err() != nil {
			<-slots
			var left []string
			for _, j := range order[n:] {
				left = append(left, procs[j].String())
			}
			fmt.Fprintf(c.Stderr, "e2e: interrupted: %s not run\n", strings.Join(left, ", "))
			break
		}
		started[i] = true
		reports[i] = filepath.Join(tmp, fmt.Sprintf("%d-%s.json", i, p.name()))
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			ok[i], noReport[i] = runAndReport(ctx, c, p, reports[i], &mu)
		}()
	}
	wg.Wait()
	passed = !slices.Contains(started, false) && !slices.Contains(ok, false)
	var ran []string // the reports, in c.Suites' order
	for i, err := range noReport {
		if !started[i] {
			continue
		}
		ran = append(ran, reports[i])
		if err == nil {
			continue
		}
		failed := types.Report{SuiteDescription: procs[i].title(), SuiteSucceeded: false,
			SpecialSuiteFailureReasons: []string{err.Error()}}
		if err := reporters.GenerateJSONReport(failed, reports[i]); err != nil {
			return false, fmt.Errorf("write the report of suite %s: %w", procs[i], err)
		}
	}
	messages, err := reporters.MergeAndCleanupJSONReports(ran, filepath.Join(c.Artifacts, ReportName))
	if err == nil && len(messages) > 0 {
		err = errors.New(strings.Join(messages, "; "))
	}
	if err != nil {
		return false, fmt.Errorf("merge the suites' reports into %s: %w", filepath.Join(c.Artifacts, ReportName), err)
	}
	return passed, nil
}

// A process is one child process of a run: a suite, or one part of a
// suite made of parts.
type process struct {
	suite suites.Suite
	part  testenv.Part // the zero Part: the whole suite
}

// processes are the child processes that run ss, parallel at a time: one
// per suite, and one per part of a suite made of parts when more than
// one runs at a time (one at a time, parts would only repeat its clean
// runs).
func processes(ss []suites.Suite, parallel int) []process {
	var out []process
	for _, s := range ss {
		if parallel <= 1 || s.Parts <= 1 {
			out = append(out, process{suite: s})
			continue
		}
		for k := 1; k <= s.Parts; k++ {
			out = append(out, process{suite: s, part: testenv.Part{K: k, N: s.Parts}})
		}
	}
	return out
}

// String names the process in the run's output: the suite, and its part.
func (p process) String() string {
	if p.part.N == 0 {
		return p.suite.Name
	}
	return fmt.Sprintf("%s (part %d of %d)", p.suite.Name, p.part.K, p.part.N)
}

// name names the process in file names: its report's, its cluster's
// and, for a part, its artifacts folder's.
func (p process) name() string {
	if p.part.N == 0 {
		return p.suite.Name
	}
	return fmt.Sprintf("%s-part-%d", p.suite.Name, p.part.K)
}

// title is the process's suite in the merged report: the suite's title,
// and its part.
func (p process) title() string {
	if p.part.N == 0 {
		return p.suite.Title
	}
	return fmt.Sprintf("%s (part %d of %d)", p.suite.Title, p.part.K, p.part.N)
}

// runAndReport runs process p, its output buffered and written whole once
// it ended when suites run side by side (mu guards that), and says
// whether it passed; noReport is why it wrote no report.
func runAndReport(ctx context.Context, c Config, p process, report string, mu *sync.Mutex) (passed bool, noReport error) {
	if c.Parallel <= 1 {
		passed, noReport = runSuite(ctx, c, p, report, c.Stdout, c.Stderr)
	} else {
		start := time.Now()
		mu.Lock()
		fmt.Fprintf(c.Stderr, "e2e: suite %s started\n", p)
		mu.Unlock()
		var out bytes.Buffer
		w := &proc.SyncWriter{W: &out}
		passed, noReport = runSuite(ctx, c, p, report, w, w)
		result := "passed"
		if !passed {
			result = "did not pass"
		}
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(c.Stdout, "\n=== e2e: suite %s %s in %s; its output:\n", p, result, time.Since(start).Round(time.Second))
		_, _ = c.Stdout.Write(out.Bytes())
	}
	if noReport != nil {
		fmt.Fprintf(c.Stderr, "e2e: suite %s: %v\n", p, noReport)
	}
	return passed, noReport
}

// runSuite runs process p in a child process writing its JSON report to
// report, and says whether it passed; err is a suite that wrote no report.
// A part has its own artifacts folder (its clean runs' specs are named as
// the other parts') and its report's suite is titled with its part.
// When ctx ends, the suite gets SIGINT (Ginkgo runs its cleanup) and is
// killed after proc.SuiteStopGrace (matrix.StartSuite, as the matrix's cells).
func runSuite(ctx context.Context, c Config, p process, report string, stdout, stderr io.Writer) (passed bool, err error) {
	artifacts := c.Artifacts
	if p.part.N > 0 {
		artifacts = filepath.Join(c.Artifacts, p.name())
	}
	args := append(slices.Clone(c.Ginkgo), "-steadystate.artifacts="+artifacts)
	if c.Parallel > 1 {
		args = append(args, "-steadystate.cluster-name="+p.name())
	}
	if p.part.N > 0 {
		args = append(args, "-"+testenv.PartFlag+"="+p.part.String())
	}
	args = append(args, c.SuiteFlags...)
	cmd := matrix.SuiteCommand(c.Program, p.suite.Name, report, args...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	wait, err := matrix.StartSuite(ctx, cmd)
	if err != nil {
		return false, fmt.Errorf("start suite %s: %w", p, err)
	}
	waitErr := wait()
	if _, err := os.Stat(report); err != nil {
		status := "exit status 0"
		if waitErr != nil {
			status = waitErr.Error()
		}
		return false, fmt.Errorf("the suite exited (%s) without writing its report: see its output above", status)
	}
	if p.part.N > 0 {
		if err := retitle(report, p.title()); err != nil {
			return false, err
		}
	}
	return waitErr == nil, nil
}

// retitle names the suite of the Ginkgo JSON report at path title.
func retitle(path, title string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var rs []types.Report
	if err := json.Unmarshal(b, &rs); err != nil {
		return fmt.Errorf("read the report %s: %w", path, err)
	}
	for i := range rs {
		rs[i].SuiteDescription = title
	}
	if b, err = json.MarshalIndent(rs, "", "  "); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// StartOrder is the order in which Run starts ss, as indices into ss: the
// long suites (suites.Suite.Long) first, then the others, each group in
// ss' order. Started first, a long suite runs beside the others instead of
// after them.
func StartOrder(ss []suites.Suite) []int {
	order := make([]int, len(ss))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case ss[a].Long == ss[b].Long:
			return 0
		case ss[a].Long:
			return -1
		}
		return 1
	})
	return order
}

// Names are the suites' names, comma-separated.
func Names(ss []suites.Suite) string {
	var n []string
	for _, s := range ss {
		n = append(n, s.Name)
	}
	return strings.Join(n, ", ")
}

// notForSuites are the ginkgo command's flags with no meaning here: the
// suites run each in one process, from a program already built, and the
// run writes its own report.json.
var notForSuites = []string{"p", "procs", "nodes", "keep-going", "output-dir", "json-report", "junit-report",
	"teamcity-report", "race", "cover", "coverprofile", "r", "recurse", "until-it-fails", "repeat", "compilers"}

// GinkgoFlags adds to fs, under the ginkgo command's names
// (--label-filter, --focus, -v, --no-color, ...), every flag a suite's
// Ginkgo takes as -ginkgo.NAME; each one given is appended to *args in
// that form. The ginkgo command's own flags (-p, --procs, --keep-going,
// the reports', the go build flags) are not among them.
func GinkgoFlags(fs *flag.FlagSet, args *[]string) {
	flag.CommandLine.VisitAll(func(f *flag.Flag) {
		name, ok := strings.CutPrefix(f.Name, "ginkgo.")
		if !ok || strings.HasPrefix(name, "parallel.") || strings.HasPrefix(f.Usage, "[DEPRECATED]") || slices.Contains(notForSuites, name) {
			return
		}
		fs.Var(forward{name: f.Name, args: args, bool: isBool(f.Value)}, name, f.Usage)
	})
}

// NotForSuites says, for an error of a flag set GinkgoFlags filled, what
// a refused ginkgo flag is; otherwise it returns err.
func NotForSuites(err error) error {
	for _, n := range notForSuites {
		if strings.HasSuffix(err.Error(), "flag provided but not defined: -"+n) {
			return fmt.Errorf("%w (a flag of the ginkgo command, which e2e does not run: the suites run each in one process of this program, one after the other, and every one runs whichever failed; the report is always ARTIFACTS/%s)", err, ReportName)
		}
	}
	return err
}

// forward is a flag whose values are forwarded as -name=value.
type forward struct {
	name string
	args *[]string
	bool bool
}

func (f forward) String() string   { return "" }
func (f forward) IsBoolFlag() bool { return f.bool }
func (f forward) Set(v string) error {
	*f.args = append(*f.args, "-"+f.name+"="+v)
	return nil
}

func isBool(v flag.Value) bool {
	b, ok := v.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// SuiteFlags are the suites' flags among an e2e command line args: rest,
// what its flag set left unparsed, which only "--" may come before (the
// flag set stops there and at the first argument that is not a flag),
// checked with CheckSuiteFlags.
func SuiteFlags(args, rest []string) ([]string, error) {
	if n := len(args) - len(rest); len(rest) > 0 && (n == 0 || args[n-1] != "--") {
		return nil, fmt.Errorf("%q is not a flag: the suites' flags come after --", rest[0])
	}
	if err := CheckSuiteFlags(rest); err != nil {
		return nil, err
	}
	return rest, nil
}

// CheckSuiteFlags checks that args are the suites' own flags
// (-steadystate.window=2s and the others testenv.RegisterFlags adds),
// before any suite starts.
func CheckSuiteFlags(args []string) error {
	fs := flag.NewFlagSet("suite flags", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	testenv.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("suite flags: %w (the suites take -steadystate.converge-timeout, -steadystate.window, -steadystate.recovery-margin and the cell's -steadystate.* flags: see 'steadystate suite -h')", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("suite flags: %q is not a flag (the suites take flags only)", fs.Arg(0))
	}
	return nil
}

// JSONReport is the Ginkgo JSON report a suite's command line args name
// (-ginkgo.json-report=FILE, or FILE as the next argument; one or two
// dashes), and whether they name one.
func JSONReport(args []string) (path string, ok bool) {
	for i, a := range args {
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		switch {
		case a == "--":
			return "", false
		case name != "ginkgo.json-report" || !strings.HasPrefix(a, "-"):
			continue
		case hasValue:
			return value, true
		case i+1 < len(args):
			return args[i+1], true
		}
	}
	return "", false
}
