package reports

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// The result words of a run, a conformance bundle and its page: PASSED
// (no finding, no error, every spec of a bound capability ran), PASSED
// WITH GAPS (as PASSED, but specs of a bound capability were skipped, or
// a bound capability's suite was not run: their properties were not
// judged), NOT PASSED (a finding: a property broke, whatever else went
// wrong beside it), ERROR (no finding, but a spec ended in an error or
// nothing was judged). Properties the subject does not bind (a field, a
// whole capability) are named beside PASSED, never hidden in it. Each word
// has its exit code (Kind).
const (
	ResultPassed     = "PASSED"
	ResultWithGaps   = "PASSED WITH GAPS"
	ResultNotPassed  = "NOT PASSED"
	ResultError      = "ERROR"
	notJudgedDivider = "; "
)

// Kind is the kind of failure a result word stands for, which decides
// the command's exit code (package cli): nil for PASSED, and for PASSED
// WITH GAPS unless failOnGaps asks that gaps fail (cli.ErrGaps);
// cli.ErrFinding for NOT PASSED; cli.ErrHarness for ERROR.
func Kind(word string, failOnGaps bool) error {
	switch word {
	case ResultPassed:
		return nil
	case ResultWithGaps:
		if failOnGaps {
			return cli.ErrGaps
		}
		return nil
	case ResultNotPassed:
		return cli.ErrFinding
	}
	return cli.ErrHarness
}

// Fail is the failure of a run whose result is word, said by msg and
// marked with the word's Kind; nil when the word is a pass.
func Fail(word string, failOnGaps bool, msg string) error {
	kind := Kind(word, failOnGaps)
	if kind == nil {
		return nil
	}
	return cli.Mark(kind, errors.New(msg))
}

// Coverage is what a set of specs judged of the properties they declare
// (verdict.Spec.Declared): each id once, however many specs and runs
// declare it.
type Coverage struct {
	// Declared and Judged are the distinct ids declared, and those of
	// them some spec judged (held or broken).
	Declared, Judged []string
	// NotBound are declared ids the subject's binding gives no means to
	// judge; Skipped, ids only skipped specs declare (or, for a skipped
	// spec that declares nothing, its name); Unjudged, the rest that no
	// spec judged (not evaluated, or missing from a spec that ended in an
	// error).
	NotBound, Skipped, Unjudged []string
}

// CoverageOf is the coverage of specs.
func CoverageOf(specs []verdict.Spec) Coverage {
	var c Coverage
	add := func(list *[]string, id string) {
		if !slices.Contains(*list, id) {
			*list = append(*list, id)
		}
	}
	for _, s := range specs {
		for _, id := range s.Declared {
			add(&c.Declared, id)
			if s.Judged(id) {
				add(&c.Judged, id)
			}
		}
		// Records a spec did not declare count too: the page and the
		// summary then name every unbound property.
		for _, r := range s.NotBound() {
			add(&c.Declared, r.ID)
		}
	}
	notBound := map[string]bool{}
	ran := map[string]bool{}
	for _, s := range specs {
		for _, r := range s.NotBound() {
			notBound[r.ID] = true
		}
		if s.CapabilityUnbound() {
			for _, id := range s.Declared {
				notBound[id] = true
			}
			continue
		}
		if s.Outcome != verdict.SkippedSpec {
			for _, id := range s.Declared {
				ran[id] = true
			}
		} else if len(s.Declared) == 0 {
			add(&c.Skipped, fmt.Sprintf("%q", s.Name))
		}
	}
	for _, id := range c.Declared {
		switch {
		case slices.Contains(c.Judged, id):
		case notBound[id]:
			add(&c.NotBound, id)
		case !ran[id]:
			add(&c.Skipped, id)
		default:
			add(&c.Unjudged, id)
		}
	}
	return c
}

// NotJudged counts the properties not judged and names them by why:
// "2 properties not judged (not bound: foreground/blocker-named;
// finalizer/P4)"; empty when every declared property was judged.
func (c Coverage) NotJudged() string {
	n := len(c.NotBound) + len(c.Skipped) + len(c.Unjudged)
	if n == 0 {
		return ""
	}
	var parts []string
	for _, p := range []struct {
		why string
		ids []string
	}{{"not bound", c.NotBound}, {"skipped", c.Skipped}, {"not evaluated", c.Unjudged}} {
		if len(p.ids) > 0 {
			parts = append(parts, p.why+": "+strings.Join(p.ids, notJudgedDivider))
		}
	}
	noun := "properties"
	if n == 1 {
		noun = "property"
	}
	return fmt.Sprintf("%d %s not judged (%s)", n, noun, strings.Join(parts, notJudgedDivider))
}

// Judgement is "14 of 16 declared properties judged", or, for a report
// whose specs declare nothing (one recorded before specs declared what
// they judge), says so rather than count nothing.
func (c Coverage) Judgement() string {
	if len(c.Declared) == 0 {
		return "no spec declares its properties"
	}
	return fmt.Sprintf("%d of %d declared properties judged", len(c.Judged), len(c.Declared))
}

// Result is the result word of a run's specs and what it leaves out:
// NOT PASSED (a spec broke) or ERROR (a spec ended in an error, or none
// passed) with the count of findings and errors, PASSED WITH GAPS naming
// the skipped, PASSED naming what is not bound.
func Result(specs []verdict.Spec) (word, detail string) {
	count := map[verdict.SpecOutcome]int{}
	gaps := 0
	for _, s := range specs {
		count[s.Outcome]++
		if s.Outcome == verdict.SkippedSpec && !s.CapabilityUnbound() {
			gaps++
		}
	}
	cov := CoverageOf(specs)
	switch {
	case count[verdict.BrokenSpec] > 0:
		return ResultNotPassed, fmt.Sprintf("%d broken (findings), %d error", count[verdict.BrokenSpec], count[verdict.Error])
	case count[verdict.Error] > 0:
		return ResultError, fmt.Sprintf("%d broken (findings), %d error", count[verdict.BrokenSpec], count[verdict.Error])
	case count[verdict.Passed] == 0:
		return ResultError, "no spec passed: nothing was judged"
	case gaps > 0:
		return ResultWithGaps, cmp.Or(cov.NotJudged(), "skipped: "+strings.Join(skippedNames(specs), notJudgedDivider))
	}
	return ResultPassed, cov.NotJudged()
}

func skippedNames(specs []verdict.Spec) []string {
	var out []string
	for _, s := range specs {
		if s.Outcome == verdict.SkippedSpec && !s.CapabilityUnbound() {
			out = append(out, fmt.Sprintf("%q", s.Name))
		}
	}
	return out
}

// Line is "PASSED", or "PASSED — detail".
func Line(word, detail string) string {
	if detail == "" {
		return word
	}
	return word + " — " + detail
}
