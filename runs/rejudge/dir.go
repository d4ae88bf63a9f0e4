package rejudge

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/reports"
)

// Dir re-judges, with no cluster, every property of every evidence.json
// below dir that can be judged from evidence alone, and prints each spec's
// verdict and, last, the result over them: PASSED, NOT PASSED (a property
// broke) or ERROR (a spec's premise did not hold, or a property was not
// evaluated). It fails as a harness error (cli.ErrHarness) when a verdict
// differs from the run's (the evidence or the judges changed, so neither
// verdict can be trusted), when evidence does not read, or when there is
// none to judge; otherwise marked with its result's kind (reports.Kind).
func Dir(dir string, stdout io.Writer) error {
	files, err := evidence.Find(dir)
	if err != nil {
		return cli.Mark(cli.ErrHarness, err)
	}
	if len(files) == 0 {
		return cli.Mark(cli.ErrHarness, fmt.Errorf("no %s below %s: a failing spec writes one next to its history.txt (STEADYSTATE_KEEP_EVIDENCE=1 keeps every spec's)", evidence.FileName, dir))
	}
	rejudged, differ, live := 0, 0, 0
	var specs []verdict.Spec
	for _, f := range files {
		e, err := evidence.Read(f)
		if err != nil {
			return cli.Mark(cli.ErrHarness, err)
		}
		rel, _ := filepath.Rel(dir, f)
		fmt.Fprintf(stdout, "%s\n  %s\n", e.Spec, rel)
		var now []verdict.Record
		for _, rec := range e.Records {
			got, remade := judge.Rejudge(rec, e)
			switch {
			case remade:
				rejudged++
				mark := "same      "
				if got.Outcome != rec.Outcome {
					differ++
					mark = "DIFFERS   "
					got.Reason += fmt.Sprintf(" (the run recorded: %s)", rec.Outcome)
				}
				fmt.Fprintf(stdout, "  %s %s\n", mark, got)
				now = append(now, got)
			case rec.Outcome == verdict.NotEvaluated || rec.Outcome == verdict.NotBound:
				fmt.Fprintf(stdout, "  as run     %s\n", rec)
				now = append(now, rec)
			default:
				live++
				fmt.Fprintf(stdout, "  live only  %s\n", rec)
				now = append(now, rec)
			}
		}
		outcome, text := specVerdict(now)
		fmt.Fprintf(stdout, "  verdict: %s\n", text)
		specs = append(specs, verdict.Spec{Name: e.Spec, Outcome: outcome})
	}
	fmt.Fprintf(stdout, "validate: %d re-judged, %d differ, %d judged live only, in %d spec(s)\n", rejudged, differ, live, len(files))
	if differ > 0 {
		return cli.Mark(cli.ErrHarness, errors.New("some verdicts differ from the run's: the evidence or the judges changed"))
	}
	word, detail := reports.Result(specs)
	fmt.Fprintf(stdout, "validate: %s\n", reports.Line(word, detail))
	switch word {
	case reports.ResultNotPassed:
		return reports.Fail(word, false, fmt.Sprintf("%s: the evidence shows a property broken (a finding): %s", dir, detail))
	case reports.ResultError:
		return reports.Fail(word, false, fmt.Sprintf("%s: a spec's verdict is unknown (a premise did not hold, or a property was not evaluated): an error, not a finding: %s", dir, detail))
	}
	return nil
}

// specVerdict is the spec's outcome from its records, and how it is said.
func specVerdict(records []verdict.Record) (verdict.SpecOutcome, string) {
	if a, ok := verdict.FailedAssumption(records); ok {
		return verdict.Error, fmt.Sprintf("error (assumption %s did not hold)", a.ID)
	}
	if ids := verdict.BrokenIDs(records); len(ids) > 0 {
		return verdict.BrokenSpec, fmt.Sprintf("broken %v", ids)
	}
	for _, r := range records {
		if r.Outcome == verdict.NotEvaluated {
			return verdict.Error, fmt.Sprintf("error (%s not evaluated)", r.ID)
		}
	}
	return verdict.Passed, "passed"
}
