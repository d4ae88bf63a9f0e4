package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/steadystate-dev/steadystate/internal/atomicfile"
	"github.com/steadystate-dev/steadystate/reports/html"
)

// htmlCommand writes a run folder's report page: DIR/report.html, or OUT.
func htmlCommand(args []string, stdout io.Writer) error {
	if len(args) < 1 || len(args) > 2 {
		return fmt.Errorf("%w: html takes a run's artifacts folder (with report.json, or a matrix's folder) and, optionally, the page to write", errUsage)
	}
	out := filepath.Join(args[0], "report.html")
	if len(args) == 2 {
		out = args[1]
	}
	if err := writePage(args[0], out, "steadystate: "+filepath.Base(args[0])); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "report: %s\n", out)
	return nil
}

// writePage writes the report page of the run folder dir to out.
func writePage(dir, out, title string) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("%s is not a folder: give a run's artifacts folder (e.g. _artifacts, or _artifacts/selftest)", dir)
	}
	return atomicfile.Write(out, func(w io.Writer) error { return html.Write(w, title, dir) })
}
