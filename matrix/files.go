package matrix

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/steadystate-dev/steadystate/reports"
	"github.com/steadystate-dev/steadystate/reports/html"
	"github.com/steadystate-dev/steadystate/verdict"
)

// replaceFile writes out whole through write, by way of a temporary file
// beside it, so that a reader never sees half a file and a failed write
// leaves the old one in place.
func replaceFile(out string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+"-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	defer os.Remove(tmp.Name())
	err = write(tmp)
	if err == nil {
		err = tmp.Chmod(0o644) // CreateTemp makes it private
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), out)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	return nil
}

// WriteJUnit writes report's specs as JUnit to out, replacing it whole.
func WriteJUnit(report, out string) error {
	reps, err := verdict.ReadReport(report)
	if err != nil {
		return err
	}
	return replaceFile(out, func(w io.Writer) error { return reports.WriteJUnit(w, "steadystate", reps) })
}

// WritePage writes the report page of the run folder dir to out.
func WritePage(dir, out, title string) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("%s is not a folder: give a run's artifacts folder (e.g. _artifacts, or _artifacts/selftest)", dir)
	}
	return replaceFile(out, func(w io.Writer) error { return html.Write(w, title, dir) })
}
