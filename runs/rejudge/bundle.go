package rejudge

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/internal/renamed"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/reports"
	"github.com/steadystate-dev/steadystate/reports/bundle"
)

// Bundle checks the results bundle at path (every file against the
// manifest's sums, and, when digest is given, the manifest against the
// digest published apart from it; nil checks the bundle's internal
// consistency only, and says so) and re-judges every verdict offline from
// the evidence its spec kept, passed and failed specs alike, printing them
// as the run did, with the capabilities that ran and those the subject
// binds that did not. Its last line is the result as conform said it:
// PASSED, PASSED WITH GAPS, NOT PASSED or ERROR.
//
// A bundle that does not verify (not intact, a report or evidence file
// older than the run, a judged verdict with no evidence, a verdict that
// differs, reports that disagree with the manifest's result) is refused
// as a harness error (cli.ErrHarness), whatever its verdicts: it cannot
// be trusted. A bundle that verifies fails, marked with its result's kind
// (reports.Kind), when the result is NOT PASSED or ERROR (among the
// errors, a suite the manifest says ran that left no report), or, with
// failOnGaps, PASSED WITH GAPS.
func Bundle(path string, digest *string, failOnGaps bool, stdout io.Writer) error {
	dst, err := os.MkdirTemp("", "steadystate-verify-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dst)
	m, err := bundle.Open(path, dst)
	if err != nil {
		return cli.Mark(cli.ErrHarness, err)
	}
	trust := "the manifest's sha256 is the published digest"
	if digest != nil {
		if err := bundle.CheckDigest(path, m, *digest); err != nil {
			return cli.Mark(cli.ErrHarness, err)
		}
		fmt.Fprintf(stdout, "bundle %s: %d files, every sum matches the manifest, whose sha256 is the published digest\n", path, len(m.Files))
	} else {
		trust = "internal consistency only (--no-digest): an archive edited together with its manifest would pass"
		fmt.Fprintf(stdout, "bundle %s: %d files, every sum matches the manifest (manifest sha256 %s, not checked against a published digest: --no-digest; an archive edited together with its manifest would pass this check)\n", path, len(m.Files), m.Digest)
	}
	fmt.Fprintf(stdout, "  subject %s, steadystate %s, %s (%s), run from %s, written %s\n", m.Subject, m.Steadystate, m.Provider, m.Kubernetes,
		m.Started.Format("2006-01-02 15:04:05 MST"), m.Created.Format("2006-01-02 15:04:05 MST"))
	for _, k := range slices.Sorted(maps.Keys(m.Versions)) {
		fmt.Fprintf(stdout, "  %s: %s\n", k, m.Versions[k])
	}
	if c := m.Campaign; c != nil {
		if err := checkCampaign(path, dst, *c, stdout); err != nil {
			return cli.Mark(cli.ErrHarness, err)
		}
	}
	var reportFiles []string
	if err := filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == "report.json" {
			reportFiles = append(reportFiles, p)
		}
		return nil
	}); err != nil {
		return cli.Mark(cli.ErrHarness, fmt.Errorf("read the extracted bundle %s: %w", path, err))
	}
	if len(reportFiles) == 0 {
		return cli.Mark(cli.ErrHarness, fmt.Errorf("%s holds no report.json: a conformance bundle has one per suite", path))
	}
	// The cells as conform judged them: one per suite (a campaign's: per
	// index), a run per report.
	var cells []reports.Cell
	cellOf := map[string]int{}
	read := map[string][]types.Report{}
	for _, p := range reportFiles {
		reps, err := verdict.ReadReport(p)
		if err != nil {
			return cli.Mark(cli.ErrHarness, err)
		}
		rel := relSlash(dst, p)
		for _, rep := range reps {
			if rep.StartTime.Before(m.Started) {
				return cli.Mark(cli.ErrHarness, fmt.Errorf("%s: %s: the report's run began %s, before this bundle's run began %s: a report left from an earlier run", path, rel, stamp(rep.StartTime), stamp(m.Started)))
			}
		}
		read[p] = reps
		suite, _, _ := strings.Cut(rel, "/")
		suite = renamed.CurrentSuite(suite) // a bundle's folder of the suite's former name
		i, ok := cellOf[suite]
		if !ok {
			i, cellOf[suite] = len(cells), len(cells)
			cells = append(cells, reports.Cell{Suite: suite, Subject: m.Subject, MaySkip: true, Conformance: true})
		}
		var run reports.Run
		for _, rep := range reps {
			run.Specs = append(run.Specs, verdict.Specs(rep)...)
		}
		cells[i].Runs = append(cells[i].Runs, run)
	}
	var notRun []string
	if m.Campaign == nil {
		var missing []reports.Cell
		notRun, missing = capabilities(m, cells, stdout)
		cells = append(cells, missing...)
	}
	var tally rejudged
	for _, p := range reportFiles {
		fmt.Fprintf(stdout, "\n%s\n", relSlash(dst, p))
		reports.PrintVerdicts(read[p], "specs", stdout)
		for _, rep := range read[p] {
			for _, s := range verdict.Specs(rep) {
				if err := tally.spec(path, dst, p, m.Started, s, stdout); err != nil {
					return cli.Mark(cli.ErrHarness, err)
				}
			}
		}
	}
	fmt.Fprintf(stdout, "\nverify: re-judged %d verdict(s) of %d spec(s) from their evidence, %d differ\n", tally.verdicts, tally.specs, tally.differ)
	if tally.differ > 0 {
		return cli.Mark(cli.ErrHarness, fmt.Errorf("%s: %d verdict(s) differ from the evidence they were judged from: the bundle's reports or the judges changed", path, tally.differ))
	}
	word, detail := reports.ConformanceResult(cells, notRun...)
	passed := word == reports.ResultPassed || word == reports.ResultWithGaps
	if passed != m.Passed {
		return cli.Mark(cli.ErrHarness, fmt.Errorf("%s: the manifest says passed=%v, its reports say passed=%v", path, m.Passed, passed))
	}
	if c := m.Campaign; c != nil && !c.Complete() {
		fmt.Fprintf(stdout, "verify: %s is intact and its verdicts stand in the indices present (%s) only: %s\n", path, ints(c.Present), trust)
		// Incomplete, the campaign is an error, unless an index present
		// found something: a finding stands on its own evidence.
		incomplete := fmt.Sprintf("the campaign is incomplete: index(es) %s of %d left no results", ints(c.Missing), c.Indices)
		if word == reports.ResultNotPassed {
			detail += "; " + incomplete
		} else {
			word, detail = reports.ResultError, incomplete+"; the indices present: "+reports.Line(word, detail)
		}
		fmt.Fprintf(stdout, "verify: %s\n", reports.Line(word, detail))
		err := fmt.Errorf("%s: the campaign is incomplete: index(es) %s of %d left no results (their pods failed or never ran), so its verdicts cover indices %s only; run the campaign again", path, ints(c.Missing), c.Indices, ints(c.Present))
		return cli.Mark(reports.Kind(word, false), err)
	}
	fmt.Fprintf(stdout, "verify: %s is intact and its verdicts stand: %s\n", path, trust)
	if c := m.Campaign; c != nil {
		fmt.Fprintf(stdout, "verify: the campaign is complete: all %d indices' results are in the bundle\n", c.Indices)
	}
	fmt.Fprintf(stdout, "verify: %s\n", reports.Line(word, detail))
	return reports.Fail(word, failOnGaps, verifyFailure(path, word, detail))
}

// verifyFailure says why a bundle that verifies, whose result is word,
// fails.
func verifyFailure(path, word, detail string) string {
	switch word {
	case reports.ResultNotPassed:
		return fmt.Sprintf("%s: the subject did not pass: a property broke (a finding)", path)
	case reports.ResultWithGaps:
		return fmt.Sprintf("%s: the subject passed with gaps (%s) and --fail-on-gaps fails that", path, detail)
	}
	return fmt.Sprintf("%s: the run ended in an error or judged nothing (%s): no finding, and no pass", path, detail)
}

// capabilities prints the capabilities whose suites ran, as the bundle
// holds their reports, and those the subject binds that did not run (the
// run's gaps, returned as notRun), from the manifest. A capability the
// manifest says ran whose suite left no report is a cell whose run ended
// in an error (missing).
func capabilities(m bundle.Manifest, cells []reports.Cell, stdout io.Writer) (notRun []string, missing []reports.Cell) {
	var ran []string
	for _, c := range cells {
		for _, s := range catalog.Suites {
			if s.Name == c.Suite {
				ran = append(ran, s.Capability+" (suite "+s.Name+")")
			}
		}
	}
	expected := m.Capabilities
	if len(expected) == 0 {
		expected = m.Bound
	}
	for _, s := range catalog.Suites {
		switch {
		case slices.Contains(expected, s.Capability) && !slices.ContainsFunc(cells, func(c reports.Cell) bool { return c.Suite == s.Name }):
			missing = append(missing, reports.Cell{Suite: s.Name, Subject: m.Subject, MaySkip: true, Conformance: true,
				Runs: []reports.Run{{Err: "the bundle holds no report of suite " + s.Name + ", which the manifest says ran"}}})
			ran = append(ran, s.Capability+" (suite "+s.Name+": no report)")
		case slices.Contains(m.Bound, s.Capability) && !slices.Contains(expected, s.Capability):
			notRun = append(notRun, s.Capability)
		}
	}
	line := "  capabilities run: " + strings.Join(ran, ", ")
	switch {
	case len(m.Bound) == 0:
		line += "; the capabilities the subject binds are not recorded (a bundle from before the manifest kept them)"
	case len(notRun) > 0:
		line += "; bound but not run: " + strings.Join(notRun, ", ") + " (conform --capabilities " + strings.Join(m.Capabilities, ",") + ")"
	default:
		line += ": every one the subject binds"
	}
	fmt.Fprintln(stdout, line)
	return notRun, missing
}

// checkCampaign checks a campaign's bundle, extracted into dst, against
// its manifest's account of the indices: every index present or
// missing, once; a present index's folder there with its record, a
// missing one's absent.
func checkCampaign(path, dst string, c bundle.Campaign, stdout io.Writer) error {
	fmt.Fprintf(stdout, "  campaign %s (%s): %d indices, seeds %d onwards, %d per index, %s each, capability %s\n", c.Job, c.UID, c.Indices, c.FirstSeed, c.SeedsPerIndex, c.Budget, c.Capability)
	fmt.Fprintf(stdout, "  indices present: %s; missing: %s\n", ints(c.Present), ints(c.Missing))
	seen := map[int]bool{}
	for _, i := range slices.Concat(c.Present, c.Missing) {
		if i < 0 || i >= c.Indices || seen[i] {
			return fmt.Errorf("%w: %s: the manifest's campaign lists index %d out of range or twice (indices 0 to %d)", bundle.ErrInvalid, path, i, c.Indices-1)
		}
		seen[i] = true
	}
	if len(seen) != c.Indices {
		return fmt.Errorf("%w: %s: the manifest's campaign accounts for %d of its %d indices", bundle.ErrInvalid, path, len(seen), c.Indices)
	}
	for _, i := range c.Present {
		if _, err := os.Stat(filepath.Join(dst, bundle.IndexFolder(i), bundle.IndexRecord)); err != nil {
			return fmt.Errorf("%w: %s: the manifest says index %d is present, and the bundle holds no index-%d/index.json", bundle.ErrInvalid, path, i, i)
		}
	}
	for _, i := range c.Missing {
		if _, err := os.Stat(filepath.Join(dst, bundle.IndexFolder(i))); err == nil {
			return fmt.Errorf("%w: %s: the manifest says index %d is missing, and the bundle holds index-%d", bundle.ErrInvalid, path, i, i)
		}
	}
	if len(c.Present) == 0 {
		return fmt.Errorf("%s: the campaign is incomplete: none of its %d indices left results (their pods failed or never ran); run the campaign again", path, c.Indices)
	}
	return nil
}

func ints(xs []int) string {
	if len(xs) == 0 {
		return "none"
	}
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// rejudged counts the verdicts verify judged again.
type rejudged struct{ verdicts, specs, differ int }

// spec re-judges every verdict spec s of the report at report recorded
// (held or broken, with an offline judge; not bound, where the evidence
// decided it: judge.OfflineNotBound) from the evidence.json in the
// spec's artifacts folder beside the report, and fails when there is
// none or it is older than the run.
func (t *rejudged) spec(bundlePath, dst, report string, started time.Time, s verdict.Spec, stdout io.Writer) error {
	var judged []verdict.Record
	for _, rec := range s.Records {
		if judge.Remakes(rec) {
			judged = append(judged, rec)
		}
	}
	if len(judged) == 0 {
		return nil
	}
	file := filepath.Join(filepath.Dir(report), evidence.SpecFolder(s.Name), evidence.FileName)
	rel := relSlash(dst, file)
	if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: spec %q (%s) recorded %s %s and kept no evidence: %s is missing, so its verdicts cannot be re-judged", bundlePath, s.Name, s.Outcome, judged[0].ID, judged[0].Outcome, rel)
	}
	e, err := evidence.Read(file)
	if err != nil {
		return fmt.Errorf("%s: %w", bundlePath, err)
	}
	switch {
	case e.Spec != s.Name:
		return fmt.Errorf("%s: %s is the evidence of spec %q, not of %q", bundlePath, rel, e.Spec, s.Name)
	case e.Start.Before(started):
		return fmt.Errorf("%s: %s: the spec began %s, before this bundle's run began %s: evidence left from an earlier run", bundlePath, rel, stamp(e.Start), stamp(started))
	}
	t.specs++
	fmt.Fprintf(stdout, "  re-judged from %s\n", rel)
	for _, rec := range judged {
		got, _ := judge.Rejudge(rec, e)
		if b := judge.BoundText(rec.ID, e); b != "" && got.Outcome != verdict.NotBound {
			got.Figures = map[string]string{"bound": b}
		}
		t.verdicts++
		mark := "same      "
		if got.Outcome != rec.Outcome {
			t.differ++
			mark = "DIFFERS   "
			got.Reason += fmt.Sprintf(" (the report recorded: %s)", rec.Outcome)
		}
		fmt.Fprintf(stdout, "    %s %s\n", mark, got)
	}
	return nil
}

func relSlash(dir, p string) string {
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(rel)
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05.000 MST") }
