package main

// The commands that read what a run left (its reports, its artifacts, a
// bundle) and need no cluster: report, junit, html, validate, verify.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/matrix"
	"github.com/steadystate-dev/steadystate/rejudge"
	"github.com/steadystate-dev/steadystate/reports"
)

// reportCommand prints a report's summary and fails when a spec did not
// pass or none ran, so it can gate a pipeline. A Ginkgo JSON report
// (report.json) is summarised by verdict: broken (named properties: a
// finding), error, skipped; a JUnit file by status.
func reportCommand(args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return fmt.Errorf("%w: report takes one file: a Ginkgo JSON report (report.json) or JUnit (junit.xml)", errUsage)
	}
	return reports.Gate(args[0], false, stdout)
}

// junitCommand writes JUnit for CI tools from a Ginkgo JSON report: one
// testcase per spec, valid against the schema Jenkins publishes
// (junit-10.xsd), findings as failures and harness errors as errors.
func junitCommand(args []string, stdout io.Writer) error {
	if len(args) != 2 {
		return fmt.Errorf("%w: junit takes a Ginkgo JSON report (report.json) and the JUnit file to write", errUsage)
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
// fails when a verdict differs from the one the run recorded.
func validateCommand(args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return fmt.Errorf("%w: validate takes one folder (a run's artifacts, or one spec's)", errUsage)
	}
	dir := args[0]
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("%s is not a folder: give the artifacts folder of a run (e.g. _artifacts) or of one failing spec", dir)
	}
	return rejudge.Dir(dir, stdout)
}

// verifyCommand checks a results bundle (every file against the
// manifest's sums, and the manifest against the digest published apart
// from it, --digest) and re-judges every verdict offline from the
// evidence its spec kept, passed and failed specs alike, printing them as
// the run did. It fails when the bundle is not intact, when a report or
// evidence file is older than the run, when a judged verdict has no
// evidence, when a verdict differs, or when the reports disagree with the
// manifest's result.
func verifyCommand(args []string, stdout io.Writer) error {
	cmd := cli.New("verify", "verify [--digest SHA256] BUNDLE",
		"Check a results bundle's sums, against the manifest digest conform printed when --digest is\n"+
			"given, and judge every verdict in it again offline from its evidence; any verdict that differs\n"+
			"fails. See docs/conformance.md.")
	flags := cmd.FS
	var digest *string
	flags.Func("digest", "the manifest's sha256 as conform printed it", func(v string) error {
		digest = &v
		return nil
	})
	var rest []string
	for {
		if err := cmd.Parse(args); err != nil {
			return err
		}
		if flags.NArg() == 0 {
			break
		}
		rest, args = append(rest, flags.Arg(0)), flags.Args()[1:]
	}
	if len(rest) != 1 {
		return fmt.Errorf("%w: verify takes one bundle (a .tar.gz written by steadystate conform), and --digest SHA256 to check it against the digest conform printed", errUsage)
	}
	return rejudge.Bundle(rest[0], digest, stdout)
}
