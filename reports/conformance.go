package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/steadystate-dev/steadystate/verdict"
)

// WriteConformance writes the short summary of a conformance run as
// Markdown, to print and to paste into a pull request: what ran (facts,
// in order), the result (ConformanceResult), how many declared properties
// were judged, and one row per spec of every cell's runs, with a row per
// property the binding does not bind. passed is false when the result is
// NOT PASSED.
func WriteConformance(w io.Writer, subject string, facts [][2]string, cells []Cell) (passed bool) {
	count := map[verdict.SpecOutcome]int{}
	var rows []string
	var specs []verdict.Spec
	for _, c := range cells {
		for _, r := range c.Runs {
			if r.Err != "" {
				rows = append(rows, fmt.Sprintf("| %s | (the run) | error | %s |", c.Suite, cell(r.Err)))
				count[verdict.Error]++
			}
			for _, s := range r.Specs {
				specs = append(specs, s)
				count[s.Outcome]++
				detail := s.Reason
				if s.Outcome == verdict.BrokenSpec {
					detail = "broke " + strings.Join(s.Broken, ", ")
				}
				rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s |", c.Suite, cell(s.Name), s.Outcome, cell(detail)))
				for _, nb := range s.NotBound() {
					rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s |", c.Suite, cell(s.Name), verdict.NotBound, cell(nb.ID+": "+nb.Reason)))
				}
			}
		}
	}
	word, detail := ConformanceResult(cells)
	fmt.Fprintf(w, "# steadystate conformance: %s\n\n", subject)
	for _, f := range facts {
		fmt.Fprintf(w, "- %s: %s\n", f[0], f[1])
	}
	fmt.Fprintf(w, "- result: **%s**", word)
	if detail != "" {
		fmt.Fprintf(w, " — %s", detail)
	}
	fmt.Fprintf(w, "\n- specs: %d passed, %d broken, %d error, %d skipped; %s\n\n",
		count[verdict.Passed], count[verdict.BrokenSpec], count[verdict.Error], count[verdict.SkippedSpec], CoverageOf(specs).Judgement())
	fmt.Fprintln(w, "| suite | spec | outcome | broken properties, or why |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, r := range rows {
		fmt.Fprintln(w, r)
	}
	return word != ResultNotPassed
}

// ConformanceResult is a conformance run's result word and what it
// leaves out: NOT PASSED when a cell did not pass (a finding, an error,
// every spec skipped, no run), with the count of findings and errors;
// PASSED WITH GAPS when a bound capability's specs were skipped, naming
// the properties they would have judged; otherwise PASSED, naming the
// properties not bound.
func ConformanceResult(cells []Cell) (word, detail string) {
	var specs []verdict.Spec
	passed, gaps := len(cells) > 0, false
	runErrs := 0
	for _, c := range cells {
		v, ok := c.Verdict()
		if !ok {
			passed = false
		}
		if strings.HasPrefix(v, PassedWithGaps) {
			gaps = true
		}
		for _, r := range c.Runs {
			if r.Err != "" {
				runErrs++
			}
			specs = append(specs, r.Specs...)
		}
	}
	_, detail = Result(specs)
	switch {
	case len(cells) == 0:
		return ResultNotPassed, "no suite ran: the subject binds no capability"
	case !passed:
		broken, errs := 0, runErrs
		for _, s := range specs {
			switch s.Outcome {
			case verdict.BrokenSpec:
				broken++
			case verdict.Error:
				errs++
			}
		}
		return ResultNotPassed, fmt.Sprintf("%d broken (findings), %d error", broken, errs)
	case gaps:
		return ResultWithGaps, detail
	}
	return ResultPassed, CoverageOf(specs).NotJudged()
}

// cell is s fit for one Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(verdict.OneLine(s), "|", `\|`)
	if r := []rune(s); len(r) > 2000 {
		s = string(r[:2000]) + "…"
	}
	return s
}
