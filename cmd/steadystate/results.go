package main

import (
	"fmt"
	"io"

	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/reports"
)

// resultsCommand keeps a matrix run as a result set of the results page
// (reports.KeepResultSet), stamped with the commit it was made at
// (--commit, the checkout's by default).
func resultsCommand(args []string, stdout io.Writer) error {
	c := cli.New("results", "results --name NAME --command COMMAND [--dir DIR] [--commit C] RUN", "Keep a matrix run (a selftest, upstream, conform or zoo folder with matrix.json) as a\n"+
		"result set in docs/results/NAME.json, stamped with the commit the run was made at (--commit;\n"+
		"this checkout's by default), today's date and\n"+
		"the command that produced it. `make docs` then writes its table into docs/results.md, in the\n"+
		"block <!-- results:NAME --> ... <!-- /results:NAME -->.")
	name := c.FS.String("name", "", "the set's name: its file and its block in the results page")
	command := c.FS.String("command", "", "the command that produced the run, as a reader would type it")
	dir := c.FS.String("dir", reports.ResultsDir, "where result sets are kept")
	at := c.FS.String("commit", "", "the commit the run was made at, when the checkout has moved on since (default: the checkout's)")
	if err := c.Parse(args); err != nil {
		return err
	}
	switch {
	case c.FS.NArg() != 1:
		return fmt.Errorf("%w: results takes one run folder (with matrix.json)", errUsage)
	case reports.CheckSetName(*name) != nil:
		return fmt.Errorf("%w: %w", errUsage, reports.CheckSetName(*name))
	case *command == "":
		return fmt.Errorf("%w: results needs --command, the command that produced the run", errUsage)
	}
	commit, err := reports.CheckoutCommit(*at)
	if err != nil {
		return err
	}
	path, set, err := reports.KeepResultSet(c.FS.Arg(0), *name, *command, commit, *dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "results: wrote %s (%d cells, %s); run make docs to write its table into %s\n", path, len(set.Rows), set.Summary, reports.ResultsPage)
	return nil
}
