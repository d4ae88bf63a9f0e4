package matrix

import (
	"fmt"
	"io"
	"os"

	"github.com/steadystate-dev/steadystate/internal/atomicfile"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/reports"
	"github.com/steadystate-dev/steadystate/reports/html"
)

// WriteJUnit writes report's specs as JUnit to out, replacing it whole.
func WriteJUnit(report, out string) error {
	reps, err := verdict.ReadReport(report)
	if err != nil {
		return err
	}
	return atomicfile.Write(out, func(w io.Writer) error { return reports.WriteJUnit(w, "steadystate", reps) })
}

// WritePage writes the report page of the run folder dir to out.
func WritePage(dir, out, title string) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("%s is not a folder: give a run's artifacts folder (e.g. _artifacts, or _artifacts/selftest)", dir)
	}
	return atomicfile.Write(out, func(w io.Writer) error { return html.Write(w, title, dir) })
}
