package reports

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// Run is one run of a cell's suite: the verdict of each spec, read from
// Ginkgo's JSON report, and the seed that replays it.
type Run struct {
	Specs []verdict.Spec
	// Seed is the run's Ginkgo random seed (--ginkgo.seed replays it).
	Seed int64
	Took time.Duration
	// Err is set when the run left no report to judge.
	Err string
	// Dir holds the run's report, log and artifacts.
	Dir string
	// PeakMemory is the suite process's peak resident memory, in bytes:
	// its fault proxies and recorders run in it (the cluster's and the
	// subject's processes are not counted); 0 when unknown.
	PeakMemory int64 `json:",omitempty"`
}

// Cell is a suite against one subject mode, run one or more times.
type Cell struct {
	Suite, Subject string
	// SubjectFile, when set, is the subject file the suite runs against
	// (an absolute path) instead of the reference subject named Subject.
	SubjectFile string `json:",omitempty"`
	// Bug is the bug the cell must show, nil for a correct subject (a
	// reference controller's correct mode, an upstream release with the
	// fix).
	Bug *catalog.Bug
	// MaySkip lets specs skip (a subject file that does not bind what
	// they need) as long as one spec ran; a reference subject binds
	// everything, so there a skip means the cell did not pass.
	MaySkip bool `json:",omitempty"`
	// Conformance marks a cell of a conformance run: nobody knows
	// whether the subject is correct, so a broken property is a finding
	// (Broken), not a false alarm.
	Conformance bool `json:",omitempty"`
	// Exclusive names what on the host the cell's subject holds whatever
	// its settings say (fixed ports): two cells that share one never run
	// at the same time. None for most; not kept in matrix.json.
	Exclusive []string `json:"-"`
	Runs      []Run
}

// Mode is "correct" or the bug's name.
func (c Cell) Mode() string {
	if c.Bug == nil {
		return "correct"
	}
	return c.Bug.Name
}

// Cells is the self-test matrix from the catalog: for each suite and each
// of its reference subjects, the subject's correct mode and every bug of
// it the suite must catch.
func Cells() []Cell {
	var out []Cell
	for _, s := range catalog.Suites {
		for _, subject := range s.Subjects() {
			out = append(out, Cell{Suite: s.Name, Subject: subject})
			for i := range catalog.Bugs {
				if b := &catalog.Bugs[i]; b.Suite == s.Name && b.Subject == subject {
					out = append(out, Cell{Suite: s.Name, Subject: subject, Bug: b})
				}
			}
		}
	}
	return out
}

// The kinds of a run's verdict. Only Passed and PassedWithGaps (a correct
// mode) and Caught (a bug mode) are as intended; Broken is a conformance
// cell's finding. PassedWithGaps is a correct cell that may skip (a
// subject file's) whose specs passed but some were skipped: their
// properties were not judged.
const (
	Passed         = "passed"
	PassedWithGaps = "passed with gaps"
	Caught         = "caught"
	FalseAlarm     = "false alarm"
	Broken         = "broken"
	NotPassed      = "not passed"
	Missed         = "missed"
	WrongProperty  = "wrong property"
	Error          = "error"
)

// Judge is one run's verdict for the cell: its kind and the detail.
func (c Cell) Judge(r Run) (kind, detail string) {
	if r.Err != "" {
		return Error, r.Err
	}
	if len(r.Specs) == 0 {
		return Error, "no spec ran"
	}
	var broken, errs []string
	unexpected := "" // a skip the cell may not have
	ran, skipped := 0, 0
	for _, s := range r.Specs {
		switch s.Outcome {
		case verdict.Error:
			errs = append(errs, s.Name+": "+s.Reason)
			continue
		case verdict.SkippedSpec:
			if c.Bug == nil && !c.MaySkip && unexpected == "" {
				unexpected = fmt.Sprintf("%s skipped: %s", s.Name, s.Reason)
			}
			if !s.CapabilityUnbound() {
				skipped++
			}
			continue
		}
		ran++
		for _, id := range s.Broken {
			if !slices.Contains(broken, id) {
				broken = append(broken, id)
			}
		}
	}
	slices.Sort(broken)
	if len(errs) > 0 {
		// Every error, and what broke beside them: the first error alone
		// would hide the rest of the run.
		detail := strings.Join(errs, "; ")
		if len(broken) > 0 {
			detail += "; broken beside: " + strings.Join(broken, ", ")
		}
		return Error, detail
	}
	if unexpected != "" {
		return NotPassed, unexpected
	}
	if ran == 0 {
		return NotPassed, "every spec skipped: " + r.Specs[0].Reason
	}
	notJudged := CoverageOf(r.Specs).NotJudged()
	switch {
	case c.Bug == nil && len(broken) == 0 && skipped > 0:
		_, gaps := Result(r.Specs)
		return PassedWithGaps, gaps
	case c.Bug == nil && len(broken) == 0:
		return Passed, notJudged
	case c.Bug == nil && c.Conformance:
		return Broken, strings.Join(broken, ", ")
	case c.Bug == nil:
		return FalseAlarm, strings.Join(broken, ", ")
	case len(broken) == 0:
		return Missed, "every property held"
	}
	want := slices.Sorted(slices.Values(c.Bug.Breaks))
	if slices.Equal(broken, want) {
		if notJudged != "" {
			return Caught, strings.Join(broken, ", ") + "; " + notJudged
		}
		return Caught, strings.Join(broken, ", ")
	}
	return WrongProperty, fmt.Sprintf("broke %s, must break exactly %s", strings.Join(broken, ", "), strings.Join(want, ", "))
}

// Verdict is the cell's verdict over every run: as intended only when
// every run was (passed for the correct mode, caught on exactly the
// declared properties for a bug mode).
func (c Cell) Verdict() (verdict string, ok bool) {
	if len(c.Runs) == 0 {
		return "not run", false
	}
	counts := map[string]int{}
	var order []string
	details := map[string]string{}
	for _, r := range c.Runs {
		kind, detail := c.Judge(r)
		if counts[kind] == 0 {
			order = append(order, kind)
			details[kind] = detail
		}
		counts[kind]++
	}
	intended := Passed
	if c.Bug != nil {
		intended = Caught
	}
	n := len(c.Runs)
	if c.Bug == nil && counts[PassedWithGaps] > 0 && counts[Passed]+counts[PassedWithGaps] == n {
		// As intended, and said so: what was skipped was not judged.
		return PassedWithGaps + ": " + details[PassedWithGaps], true
	}
	if counts[intended] == n {
		if details[intended] == "" {
			return intended, true
		}
		return intended + ": " + details[intended], true
	}
	var parts []string
	for _, k := range order {
		part := fmt.Sprintf("%s %d/%d", k, counts[k], n)
		if details[k] != "" {
			part += " (" + details[k] + ")"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, "; "), false
}

// PrintMatrix writes one row per cell with its verdict and median wall
// time, and a closing line "<name>: N as intended, N not" ("N passed, N
// not passed" when every cell is a conformance cell), with the
// number of cells that left declared properties unjudged (not bound,
// skipped) when there are any.
func PrintMatrix(w io.Writer, name string, cells []Cell) (allOK bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SUITE\tSUBJECT\tMODE\tRUNS\tTIME\tVERDICT")
	gaps := 0
	for _, c := range cells {
		v, _ := c.Verdict()
		if c.NotJudged() != "" {
			gaps++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", c.Suite, c.Subject, c.Mode(), len(c.Runs), medianTook(c.Runs).Round(100*time.Millisecond), v)
	}
	tw.Flush()
	count, ok := Count(cells)
	fmt.Fprintf(w, "%s: %s", name, count)
	if gaps > 0 {
		fmt.Fprintf(w, " (%d with declared properties not judged)", gaps)
	}
	fmt.Fprintln(w)
	return ok
}

// Count is the cells' closing count, "N as intended, N not", or, when
// every cell is a conformance cell (which has no intended outcome: it
// passed or it did not), "N passed, N not passed"; ok when none is not.
func Count(cells []Cell) (count string, ok bool) {
	good, bad := 0, 0
	for _, c := range cells {
		if _, ok := c.Verdict(); ok {
			good++
		} else {
			bad++
		}
	}
	words := [2]string{"as intended", "not"}
	if len(cells) > 0 && !slices.ContainsFunc(cells, func(c Cell) bool { return !c.Conformance }) {
		words = [2]string{"passed", "not passed"}
	}
	return fmt.Sprintf("%d %s, %d %s", good, words[0], bad, words[1]), bad == 0
}

// NotJudged is what the cell's runs left unjudged of what their specs
// declare ("" when nothing).
func (c Cell) NotJudged() string {
	var specs []verdict.Spec
	for _, r := range c.Runs {
		specs = append(specs, r.Specs...)
	}
	return CoverageOf(specs).NotJudged()
}

func medianTook(runs []Run) time.Duration {
	if len(runs) == 0 {
		return 0
	}
	ds := make([]time.Duration, len(runs))
	for i, r := range runs {
		ds[i] = r.Took
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// PrintFigures lists, per cell, spec and property, the figures its runs
// measured (convergence and recovery times, failovers, bounds), run by
// run: a property several specs judge has a row per spec.
func PrintFigures(w io.Writer, cells []Cell) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := false
	for _, c := range cells {
		type key struct{ spec, property, figure string }
		var order []key
		values := map[key][]string{}
		for _, r := range c.Runs {
			for _, s := range r.Specs {
				for _, rec := range s.Records {
					for _, f := range slices.Sorted(maps.Keys(rec.Figures)) {
						k := key{s.Name, rec.ID, f}
						if values[k] == nil {
							order = append(order, k)
						}
						values[k] = append(values[k], rec.Figures[f])
					}
				}
			}
		}
		for _, k := range order {
			if !header {
				fmt.Fprintln(tw, "SUBJECT\tSPEC\tPROPERTY\tFIGURE\tRUNS")
				header = true
			}
			runs := strings.Join(values[k], ", ")
			if v := values[k]; len(v) > 1 && len(slices.Compact(slices.Clone(v))) == 1 {
				// A bound the same in every run is said once.
				runs = fmt.Sprintf("%s (all %d runs)", v[0], len(v))
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.Subject, k.spec, k.property, k.figure, runs)
		}
	}
	tw.Flush()
}

// Select is the self-test matrix's cells of the suites and modes named
// (nil: every one); naming none is an error.
func Select(suites, modes []string) ([]Cell, error) { return SelectOf(suites, nil, modes) }

// SelectOf is Select narrowed to the cells of the reference subjects
// named (nil for all): `selftest --subjects stack --modes correct` runs
// the stack's correct cell alone, and not the composite's.
func SelectOf(suites, subjects, modes []string) ([]Cell, error) {
	var out []Cell
	for _, cell := range Cells() {
		if (suites == nil || slices.Contains(suites, cell.Suite)) && (subjects == nil || slices.Contains(subjects, cell.Subject)) &&
			(modes == nil || slices.Contains(modes, cell.Mode())) {
			out = append(out, cell)
		}
	}
	if len(out) == 0 {
		var what []string
		for _, sel := range []struct {
			name  string
			items []string
		}{{"suites", suites}, {"subjects", subjects}, {"modes", modes}} {
			if sel.items != nil {
				what = append(what, sel.name+" "+strings.Join(sel.items, ","))
			}
		}
		if n := len(what); n > 1 {
			what = append(what[:n-2], what[n-2]+" and "+what[n-1])
		}
		return nil, fmt.Errorf("%s select no cell of the matrix", strings.Join(what, ", "))
	}
	return out, nil
}
