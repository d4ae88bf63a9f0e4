package reports

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Run is one run of a suite against one subject mode.
type Run struct {
	// Error is set when the run proves nothing: the suite could not set up,
	// or a scenario's assumptions did not hold.
	Error  string
	Failed bool
	// Property is the first broken property of a failed run.
	Property string
	Took     time.Duration
}

// Cell is a suite against one subject mode, run one or more times.
type Cell struct {
	Suite   string
	Subject string
	// Bug is the seeded bug, empty for the correct mode.
	Bug  string
	Runs []Run
}

// Verdict says what the runs mean: a correct mode must pass, a bug mode
// must be caught (fail), every time.
func (c Cell) Verdict() (verdict string, ok bool) {
	failed := 0
	for _, r := range c.Runs {
		if r.Error != "" {
			return "error: " + r.Error, false
		}
		if r.Failed {
			failed++
		}
	}
	n := len(c.Runs)
	switch {
	case c.Bug == "" && failed == 0:
		return "passed", true
	case c.Bug == "" && failed == n:
		return "false alarm: " + c.property(), false
	case c.Bug == "":
		return fmt.Sprintf("flaky: false alarm in %d/%d (%s)", failed, n, c.property()), false
	case failed == n:
		return "caught: " + c.property(), true
	case failed == 0:
		return "missed", false
	default:
		return fmt.Sprintf("flaky: caught in %d/%d (%s)", failed, n, c.property()), false
	}
}

func (c Cell) property() string {
	for _, r := range c.Runs {
		if r.Failed {
			return r.Property
		}
	}
	return ""
}

// Mode is "correct" or the bug's name.
func (c Cell) Mode() string {
	if c.Bug == "" {
		return "correct"
	}
	return c.Bug
}

// PrintMatrix writes one row per cell with its verdict and median wall
// time, and a closing line "selftest: N passed, N failed".
func PrintMatrix(w io.Writer, cells []Cell) (allOK bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SUITE\tSUBJECT\tMODE\tRUNS\tTIME\tVERDICT")
	good, bad := 0, 0
	for _, c := range cells {
		verdict, ok := c.Verdict()
		if ok {
			good++
		} else {
			bad++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", c.Suite, c.Subject, c.Mode(), len(c.Runs), medianTook(c.Runs).Round(100*time.Millisecond), verdict)
	}
	tw.Flush()
	fmt.Fprintf(w, "selftest: %d passed, %d failed\n", good, bad)
	return bad == 0
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

// FirstProperty extracts the broken property from an oracle failure
// message: its first line, up to the guarantee's text.
func FirstProperty(message string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(message), "\n")
	if i := strings.Index(line, "\": "); i >= 0 {
		return line[:i+1]
	}
	return line
}
