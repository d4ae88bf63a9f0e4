package main

// The commands that read what a run left (its reports, its artifacts, a
// bundle) and need no cluster: report, junit, html, validate, verify.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/reports"
	"github.com/steadystate-dev/steadystate/reports/bundle"
	"github.com/steadystate-dev/steadystate/runs/matrix"
	"github.com/steadystate-dev/steadystate/runs/rejudge"
)

// reportCommand prints a report's summary and fails unless its result is
// a pass, so it can gate a pipeline, with the result's exit code. A Ginkgo
// JSON report (report.json) is summarised by verdict: broken (named
// properties: a finding), error, skipped; a JUnit file by status.
func reportCommand(args []string, stdout io.Writer) error {
	cmd := cli.New("report", "report [--fail-on-gaps] FILE",
		"Summarise a run: a Ginkgo JSON report (report.json) by verdict, a JUnit file by status, and its\n"+
			"result, PASSED, PASSED WITH GAPS, NOT PASSED or ERROR; the exit code says which (see\n"+
			"docs/conformance.md, \"Exit codes\").")
	failOnGaps := cmd.FS.Bool("fail-on-gaps", false, "fail a pass with gaps (exit 4)")
	path, err := oneArgument(cmd, args, "report takes one file: a Ginkgo JSON report (report.json) or JUnit (junit.xml)")
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); err != nil {
		return cli.Mark(cli.ErrInput, fmt.Errorf("read report: %w", err))
	}
	return reports.Gate(path, *failOnGaps, stdout)
}

// oneArgument parses cmd's flags, before or after its one argument, which
// it returns; missing says what it takes.
func oneArgument(cmd cli.Command, args []string, missing string) (string, error) {
	rest, err := cmd.ParseAll(args)
	if err != nil {
		return "", err
	}
	if len(rest) != 1 {
		return "", fmt.Errorf("%w: %s", errUsage, missing)
	}
	return rest[0], nil
}

// junitCommand writes JUnit for CI tools from a Ginkgo JSON report: one
// testcase per spec, valid against the schema Jenkins publishes
// (junit-10.xsd), findings as failures and harness errors as errors.
func junitCommand(args []string, stdout io.Writer) error {
	if len(args) != 2 {
		return fmt.Errorf("%w: junit takes a Ginkgo JSON report (report.json) and the JUnit file to write", errUsage)
	}
	if _, err := os.Stat(args[0]); err != nil {
		return cli.Mark(cli.ErrInput, fmt.Errorf("read report: %w", err))
	}
	if err := matrix.WriteJUnit(args[0], args[1]); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "junit: %s\n", args[1])
	return nil
}

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

// validateCommand re-judges, with no cluster, every property of every
// evidence.json below a folder that can be judged from evidence alone, and
// fails when a verdict differs from the one the run recorded, or, with
// the result's exit code, when the evidence shows a property broken or a
// spec's verdict unknown.
func validateCommand(args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return fmt.Errorf("%w: validate takes one folder (a run's artifacts, or one spec's)", errUsage)
	}
	dir := args[0]
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return cli.Mark(cli.ErrInput, fmt.Errorf("%s is not a folder: give the artifacts folder of a run (e.g. _artifacts) or of one failing spec", dir))
	}
	return rejudge.Dir(dir, stdout)
}

// verifyCommand checks a results bundle (every file against the
// manifest's sums, and the manifest against the digest published apart
// from it, --digest, unless --no-digest accepts its internal consistency
// alone) and re-judges every verdict offline from the evidence its spec
// kept, passed and failed specs alike, printing them as the run did and,
// last, the result. A bundle that does not verify is a harness error; one
// that does has its result's exit code.
func verifyCommand(args []string, stdout io.Writer) error {
	cmd := cli.New("verify", "verify --digest SHA256 | --no-digest [--fail-on-gaps] BUNDLE",
		"Check a results bundle's sums and its manifest against the digest conform printed (--digest),\n"+
			"or its internal consistency only (--no-digest: an archive edited together with its manifest\n"+
			"passes that), and judge every verdict in it again offline from its evidence; the last line is\n"+
			"the result as conform said it, and the exit code says which (see docs/conformance.md, \"Exit\n"+
			"codes\"). A bundle that does not verify, or a verdict that differs, exits 3.")
	flags := cmd.FS
	var digest *string
	flags.Func("digest", "the manifest's sha256 as conform printed it", func(v string) error {
		if err := bundle.CheckDigestSyntax(v); err != nil {
			return err
		}
		digest = &v
		return nil
	})
	noDigest := flags.Bool("no-digest", false, "check the bundle's internal consistency only, with no published digest")
	failOnGaps := flags.Bool("fail-on-gaps", false, "fail a pass with gaps (exit 4)")
	path, err := oneArgument(cmd, args, "verify takes one bundle (a .tar.gz written by steadystate conform), and --digest SHA256 to check it against the digest conform printed")
	if err != nil {
		return err
	}
	switch {
	case digest == nil && !*noDigest:
		return fmt.Errorf("%w: verify needs --digest SHA256, the manifest digest conform printed and published apart from the bundle; or --no-digest to check the bundle's internal consistency only, which an archive edited together with its manifest passes", errUsage)
	case digest != nil && *noDigest:
		return fmt.Errorf("%w: verify takes --digest or --no-digest, not both", errUsage)
	}
	if _, err := os.Stat(path); err != nil {
		return cli.Mark(cli.ErrInput, err)
	}
	return rejudge.Bundle(path, digest, *failOnGaps, stdout)
}
