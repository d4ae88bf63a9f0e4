package rejudge

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/steadystate-dev/steadystate/evidence"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/verdict"
)

// Dir re-judges, with no cluster, every property of every evidence.json
// below dir that can be judged from evidence alone, and fails when a
// verdict differs from the run's.
func Dir(dir string, stdout io.Writer) error {
	files, err := evidence.Find(dir)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no %s below %s: a failing spec writes one next to its history.txt (STEADYSTATE_KEEP_EVIDENCE=1 keeps every spec's)", evidence.FileName, dir)
	}
	rejudged, differ, live := 0, 0, 0
	for _, f := range files {
		e, err := evidence.Read(f)
		if err != nil {
			return err
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
		fmt.Fprintf(stdout, "  verdict: %s\n", specVerdict(now))
	}
	fmt.Fprintf(stdout, "validate: %d re-judged, %d differ, %d judged live only, in %d spec(s)\n", rejudged, differ, live, len(files))
	if differ > 0 {
		return errors.New("some verdicts differ from the run's: the evidence or the judges changed")
	}
	return nil
}

// specVerdict is the spec's outcome from its records.
func specVerdict(records []verdict.Record) string {
	if a, ok := verdict.FailedAssumption(records); ok {
		return fmt.Sprintf("error (assumption %s did not hold)", a.ID)
	}
	if ids := verdict.BrokenIDs(records); len(ids) > 0 {
		return fmt.Sprintf("broken %v", ids)
	}
	for _, r := range records {
		if r.Outcome == verdict.NotEvaluated {
			return fmt.Sprintf("error (%s not evaluated)", r.ID)
		}
	}
	return "passed"
}
