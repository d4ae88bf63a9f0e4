package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/steadystate-dev/steadystate/matrix"
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
	if err := matrix.WritePage(args[0], out, "steadystate: "+filepath.Base(args[0])); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "report: %s\n", out)
	return nil
}
