package main

import (
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/steadystate-dev/steadystate/evidence"
	"github.com/steadystate-dev/steadystate/reports/bundle"
	"github.com/steadystate-dev/steadystate/verdict"
)

// verifyCommand checks a results bundle (every file against the
// manifest's sums) and re-judges its verdicts offline from the recorded
// evidence, printing them as the run did. It fails when the bundle is
// not intact, when a verdict differs, or when the reports disagree with
// the manifest's result.
func verifyCommand(args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return fmt.Errorf("%w: verify takes one bundle (a .tar.gz written by steadystate conform)", errUsage)
	}
	dst, err := os.MkdirTemp("", "steadystate-verify-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dst)
	m, err := bundle.Open(args[0], dst)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "bundle %s: %d files, every sum matches the manifest\n", args[0], len(m.Files))
	fmt.Fprintf(stdout, "  subject %s, steadystate %s, %s (%s), written %s\n", m.Subject, m.Steadystate, m.Provider, m.Kubernetes, m.Created.Format("2006-01-02 15:04:05 MST"))
	for _, k := range slices.Sorted(maps.Keys(m.Versions)) {
		fmt.Fprintf(stdout, "  %s: %s\n", k, m.Versions[k])
	}
	var reportFiles []string
	filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "report.json" {
			reportFiles = append(reportFiles, p)
		}
		return nil
	})
	if len(reportFiles) == 0 {
		return fmt.Errorf("%s holds no report.json: a conformance bundle has one per suite", args[0])
	}
	passed := true
	for _, p := range reportFiles {
		reps, err := verdict.ReadReport(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dst, p)
		fmt.Fprintf(stdout, "\n%s\n", filepath.ToSlash(rel))
		count := printVerdicts(reps, "specs", stdout)
		if count[verdict.BrokenSpec]+count[verdict.Error] > 0 || count[verdict.Passed] == 0 {
			passed = false
		}
	}
	fmt.Fprintln(stdout)
	if files, err := evidence.Find(dst); err != nil {
		return err
	} else if len(files) == 0 {
		fmt.Fprintln(stdout, "no spec kept evidence (only failing specs do): no verdict to re-judge")
	} else if err := validateDir(dst, stdout); err != nil {
		return err
	}
	if passed != m.Passed {
		return fmt.Errorf("%s: the manifest says passed=%v, its reports say passed=%v", args[0], m.Passed, passed)
	}
	result := "passed"
	if !passed {
		result = "did not pass"
	}
	fmt.Fprintf(stdout, "verify: %s is intact and its verdicts stand: the subject %s\n", args[0], result)
	return nil
}
