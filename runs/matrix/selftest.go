package matrix

// The self-test: every suite against every reference subject mode of the
// catalog, as the steadystate program's selftest command runs it.

import (
	"context"
	"fmt"
	"io"

	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/internal/config"
	"github.com/steadystate-dev/steadystate/internal/renamed"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/reports"
)

// selftestConfig is the self-test's configuration, read once from the
// flags, whose defaults are the environment's SELFTEST_* variables.
type selftestConfig struct {
	suites, subjects, modes []string
	run                     Run
}

func selftestConfigFrom(e config.Settings, args []string) (selftestConfig, error) {
	var c selftestConfig
	parallel := 3
	if e.Provider == "kind" {
		parallel = 1 // each cell is a kind cluster: one at a time on small machines
	}
	cmd := cli.New("selftest", "selftest [--suites S,...] [--subjects S,...] [--modes M,...] [--repeat N] [--parallel N]",
		"Runs every suite against every reference subject mode (each cell with its own cluster, on\n"+
			"PROVIDER) and fails unless every correct mode passed and every bug was caught on exactly\n"+
			"its declared properties, every time. The runs go below ARTIFACTS/selftest. The\n"+
			"reconcile suite runs two reference subjects, composite and stack: --subjects stack\n"+
			"--modes correct runs the stack's correct cell alone.")
	suitesFlag := cmd.FS.String("suites", e.Matrix["SELFTEST"].Suites, "run only these comma-separated `suites` (SELFTEST_SUITES; default all)")
	subjectsFlag := cmd.FS.String("subjects", e.Matrix["SELFTEST"].Subjects, "run only the cells of these comma-separated reference `subjects` (SELFTEST_SUBJECTS; default all)")
	modesFlag := cmd.FS.String("modes", e.Matrix["SELFTEST"].Modes, "run only these comma-separated `modes`: correct or a bug of the catalog (SELFTEST_MODES; default all)")
	mf := AddFlags(cmd, e, "SELFTEST", parallel)
	if err := cmd.Parse(args); err != nil {
		return c, err
	}
	if cmd.FS.NArg() > 0 {
		return c, fmt.Errorf("%w: selftest takes flags only (--suites, --subjects, --modes, --repeat, --parallel), not %q", cli.ErrUsage, cmd.FS.Arg(0))
	}
	var err error
	if c.run, err = mf.Run(cmd, "selftest", "self-test matrix"); err != nil {
		return c, err
	}
	if c.suites, err = cli.List(cmd.Source("suites", "SELFTEST_SUITES"), cli.Renamed(*suitesFlag, renamed.CurrentSuite), "a suite of the matrix", catalog.SuiteNames()); err != nil {
		return c, err
	}
	if c.subjects, err = cli.List(cmd.Source("subjects", "SELFTEST_SUBJECTS"), *subjectsFlag, "a reference subject of the matrix", catalog.SubjectNames()); err != nil {
		return c, err
	}
	if c.modes, err = cli.List(cmd.Source("modes", "SELFTEST_MODES"), *modesFlag, "a mode of the catalog", append([]string{"correct"}, catalog.Names()...)); err != nil {
		return c, err
	}
	return c, nil
}

// Selftest is the selftest command: it runs every selected cell of the matrix --repeat times,
// --parallel cells at a time (each with its own cluster), and fails
// unless every correct mode passed and every bug was caught on exactly its
// declared properties, every time.
func Selftest(ctx context.Context, settings config.Settings, args []string, stdout, stderr io.Writer) error {
	cfg, err := selftestConfigFrom(settings, args)
	if err != nil {
		return cli.Mark(cli.ErrInput, err)
	}
	cells, err := reports.SelectOf(cfg.suites, cfg.subjects, cfg.modes)
	if err != nil {
		return cli.Mark(cli.ErrInput, err)
	}
	if _, err := cfg.run.RunAll(ctx, cells, stdout, stderr); err != nil {
		return err
	}
	return Failure("selftest", "self-test", cells, stdout)
}

// Failure prints the result of the cells of command's matrix (a
// self-test's or an upstream matrix's, what), which ran
// (reports.MatrixResult), and is the command's
// failure: a finding of the matrix (a correct mode that broke a property,
// a bug missed or caught on other properties), or, when the cells not as
// intended only ended in errors or judged nothing, a harness error.
func Failure(command, what string, cells []reports.Cell, stdout io.Writer) error {
	word, detail := reports.MatrixResult(cells)
	fmt.Fprintf(stdout, "%s: %s\n", command, reports.Line(word, detail))
	switch word {
	case reports.ResultPassed, reports.ResultWithGaps:
		return nil
	case reports.ResultNotPassed:
		return reports.Fail(word, false, fmt.Sprintf("the %s failed: a correct subject broke a property, or one with a bug did not break exactly its declared properties, every time", what))
	}
	return reports.Fail(word, false, fmt.Sprintf("the %s did not judge every cell: a run ended in an error or judged nothing, which is no finding; run it again", what))
}
