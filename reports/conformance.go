package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/steadystate-dev/steadystate/verdict"
)

// WriteConformance writes the short summary of a conformance run as
// Markdown, to print and to paste into a pull request: what ran (facts,
// in order), the result, and one row per spec of every cell's runs.
func WriteConformance(w io.Writer, subject string, facts [][2]string, cells []Cell) (passed bool) {
	count := map[verdict.SpecOutcome]int{}
	var rows []string
	passed = len(cells) > 0
	for _, c := range cells {
		if _, ok := c.Verdict(); !ok {
			passed = false
		}
		for _, r := range c.Runs {
			if r.Err != "" {
				rows = append(rows, fmt.Sprintf("| %s | (the run) | error | %s |", c.Suite, cell(r.Err)))
				count[verdict.Error]++
			}
			for _, s := range r.Specs {
				count[s.Outcome]++
				detail := s.Reason
				if s.Outcome == verdict.BrokenSpec {
					detail = "broke " + strings.Join(s.Broken, ", ")
				}
				rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s |", c.Suite, cell(s.Name), s.Outcome, cell(detail)))
			}
		}
	}
	result := "PASSED"
	if !passed {
		result = "NOT PASSED"
	}
	fmt.Fprintf(w, "# steadystate conformance: %s\n\n", subject)
	for _, f := range facts {
		fmt.Fprintf(w, "- %s: %s\n", f[0], f[1])
	}
	fmt.Fprintf(w, "- result: **%s** (%d passed, %d broken, %d error, %d skipped)\n\n", result,
		count[verdict.Passed], count[verdict.BrokenSpec], count[verdict.Error], count[verdict.SkippedSpec])
	fmt.Fprintln(w, "| suite | spec | outcome | broken properties, or why |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, r := range rows {
		fmt.Fprintln(w, r)
	}
	return passed
}

// cell is s fit for one Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(firstLine(s), "|", `\|`)
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}
