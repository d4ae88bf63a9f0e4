package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// WriteConformance writes the short summary of a conformance run as
// Markdown, to print and to paste into a pull request: what ran (facts,
// in order), the result (ConformanceResult; notRun are the capabilities
// the subject binds whose suites were not run), how many declared
// properties were judged, and one row per spec of every cell's runs, with
// a row per property the binding does not bind. passed is false when the
// result is NOT PASSED or ERROR.
func WriteConformance(w io.Writer, subject string, facts [][2]string, cells []Cell, notRun ...string) (passed bool) {
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
	word, detail := ConformanceResult(cells, notRun...)
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
	return word == ResultPassed || word == ResultWithGaps
}

// ConformanceResult is a conformance run's result word and what it
// leaves out. NOT PASSED when a spec broke a property (a finding, even
// beside an error), with the count of findings and errors; ERROR when a
// cell did not pass without a finding (an error, every spec skipped, no
// run, no cell at all); PASSED WITH GAPS when a bound capability's specs
// were skipped, naming the properties they would have judged, or when
// notRun names bound capabilities whose suites were not run (conform
// --capabilities); otherwise PASSED, naming the properties not bound.
func ConformanceResult(cells []Cell, notRun ...string) (word, detail string) {
	var specs []verdict.Spec
	passed, gaps := len(cells) > 0, false
	runErrs := 0
	var not []string
	for _, c := range cells {
		v, ok := c.Verdict()
		if !ok {
			passed = false
			not = append(not, c.Suite+": "+v)
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
		return ResultError, "no suite ran: the subject binds no capability"
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
		switch counts := fmt.Sprintf("%d broken (findings), %d error", broken, errs); {
		case broken > 0:
			return ResultNotPassed, counts
		case errs > 0:
			return ResultError, counts
		}
		return ResultError, "nothing judged: " + strings.Join(not, "; ")
	case len(notRun) > 0:
		left := "capabilities not run: " + strings.Join(notRun, ", ")
		if gaps {
			return ResultWithGaps, left + notJudgedDivider + detail
		}
		if nj := CoverageOf(specs).NotJudged(); nj != "" {
			left += notJudgedDivider + nj
		}
		return ResultWithGaps, left
	case gaps:
		return ResultWithGaps, detail
	}
	return ResultPassed, CoverageOf(specs).NotJudged()
}

// MatrixResult is a self-test's or an upstream matrix's result: PASSED
// (or PASSED WITH GAPS, as ConformanceResult says of its cells) when every
// cell was as intended; otherwise NOT PASSED when a run was a finding of
// the matrix (a bug missed or caught on other properties, a false alarm,
// a broken property), else ERROR (the runs not as intended ended in an
// error or judged nothing). Its detail names the cells not as intended.
func MatrixResult(cells []Cell) (word, detail string) {
	var not []string
	finding := false
	for _, c := range cells {
		if v, ok := c.Verdict(); !ok {
			not = append(not, fmt.Sprintf("%s %s %s: %s", c.Suite, c.Subject, c.Mode(), v))
		}
		for _, r := range c.Runs {
			switch kind, _ := c.Judge(r); kind {
			case Missed, WrongProperty, FalseAlarm, Broken:
				finding = true
			}
		}
	}
	switch {
	case len(cells) == 0:
		return ResultError, "no cell ran"
	case len(not) == 0:
		word, _ = ConformanceResult(cells)
		return word, fmt.Sprintf("%d of %d cells as intended", len(cells), len(cells))
	}
	detail = fmt.Sprintf("%d of %d cells not as intended: %s", len(not), len(cells), strings.Join(not, "; "))
	if finding {
		return ResultNotPassed, detail
	}
	return ResultError, detail
}

// cell is s fit for one Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(verdict.OneLine(s), "|", `\|`)
	if r := []rune(s); len(r) > 2000 {
		s = string(r[:2000]) + "…"
	}
	return s
}
