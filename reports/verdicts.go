package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// PrintVerdicts prints one line per spec (with the properties it could
// not judge as not bound), the closing line "<label>: N passed, ...",
// and the result: "<label>: PASSED — 1 property not judged (not bound:
// ...); 4 of 5 declared properties judged". It counts the specs by
// outcome.
func PrintVerdicts(reps []types.Report, label string, stdout io.Writer) map[verdict.SpecOutcome]int {
	count := map[verdict.SpecOutcome]int{}
	var specs []verdict.Spec
	for _, rep := range reps {
		for _, s := range verdict.Specs(rep) {
			specs = append(specs, s)
			count[s.Outcome]++
			line := fmt.Sprintf("%-7s %6.1fs  %s: %s", strings.ToUpper(string(s.Outcome)), s.Seconds, s.Suite, s.Name)
			switch s.Outcome {
			case verdict.BrokenSpec:
				line += "\n          broken: " + strings.Join(s.Broken, ", ")
			case verdict.Error, verdict.SkippedSpec:
				line += "\n          " + s.Reason
			}
			for _, nb := range s.NotBound() {
				line += "\n          not bound: " + nb.ID + ": " + nb.Reason
			}
			fmt.Fprintln(stdout, line)
		}
	}
	fmt.Fprintf(stdout, "%s: %d passed, %d failed, %d skipped (%d broken, %d error)\n", label,
		count[verdict.Passed], count[verdict.BrokenSpec]+count[verdict.Error], count[verdict.SkippedSpec], count[verdict.BrokenSpec], count[verdict.Error])
	word, detail := Result(specs)
	fmt.Fprintf(stdout, "%s: %s; %s\n", label, Line(word, detail), CoverageOf(specs).Judgement())
	return count
}
