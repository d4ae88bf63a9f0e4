package html

import (
	"cmp"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/reports"
)

// run is one report.json of a run folder: its specs and the evidence
// kept below it, by spec.
type run struct {
	dir      string // relative to the run folder, with /
	specs    []verdict.Spec
	evidence map[string]string // spec full text -> evidence.json, relative
	started  time.Time         // the earliest of its reports' starts
}

// load reads root's report.json, or, when it has none (a matrix's
// folder), every report.json below it; and each report's kept evidence,
// one folder below it (a spec's artifacts folder).
func load(root string) ([]run, error) {
	reports := []string{filepath.Join(root, "report.json")}
	if _, err := os.Stat(reports[0]); err != nil {
		reports = nil
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Name() == "report.json" {
				reports = append(reports, p)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	var runs []run
	for _, p := range reports {
		reps, err := verdict.ReadReport(p)
		if err != nil {
			return nil, err
		}
		dir := filepath.Dir(p)
		rel, _ := filepath.Rel(root, dir)
		r := run{dir: filepath.ToSlash(rel), evidence: map[string]string{}}
		var started time.Time
		for _, rep := range reps {
			r.specs = append(r.specs, verdict.Specs(rep)...)
			if started.IsZero() || rep.StartTime.Before(started) {
				started = rep.StartTime
			}
		}
		r.started = started
		// Evidence left by an earlier run in the same folder, or that
		// this steadystate cannot read, has no place on this page.
		files, _ := filepath.Glob(filepath.Join(dir, "*", evidence.FileName))
		for _, f := range files {
			e, err := evidence.Read(f)
			if err != nil || e.Start.Before(started) {
				continue
			}
			rel, _ := filepath.Rel(root, f)
			r.evidence[e.Spec] = filepath.ToSlash(rel)
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// row is one spec of one cell over every run of it.
type row struct {
	Cell, Suite, Spec string
	Outcomes          string // "broken 3/3", "passed 2/3, error 1/3"
	Class             string // the worst outcome, for the row's colour
	Broken            string
	NotJudged         string // "not bound: foreground/blocker-named"
	Figures           string
	Median            string
	Links             []link
}

type link struct{ Href, Text string }

// failing is one run of a spec that did not pass and kept its evidence.
type failing struct {
	ID, Title, Reason, Evidence string
	Timeline                    template.HTML
}

var repeat = regexp.MustCompile(`/[0-9]+$`)

// Write reads the run folder root (a make e2e's artifacts, or a
// matrix's: the self-test's, the upstream cells', a conformance run's)
// and writes its page to w. The page's title names the subject, the run
// (title, the caller's name for it, and when it started) and its result
// (see headingOf).
func Write(w io.Writer, title, root string) error {
	runs, err := load(root)
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		return fmt.Errorf("no report.json below %s: give a run's artifacts folder", root)
	}
	type key struct{ cell, suite, spec string }
	var order []key
	groups := map[key][]verdict.Spec{}
	links := map[key][]link{}
	var fails []failing
	for _, r := range runs {
		cell := repeat.ReplaceAllString(r.dir, "")
		if cell == "." {
			cell = ""
		}
		for _, s := range r.specs {
			k := key{cell, s.Suite, s.Name}
			if _, ok := groups[k]; !ok {
				order = append(order, k)
			}
			groups[k] = append(groups[k], s)
			ev, kept := r.evidence[s.Name]
			if !kept || s.Outcome == verdict.Passed {
				continue
			}
			id := fmt.Sprintf("f%d", len(fails)+1)
			text := path.Base(r.dir) // the repeat's number
			if r.dir == "." {
				text = "timeline"
			}
			links[k] = append(links[k], link{"#" + id, text})
			f := failing{ID: id, Title: strings.TrimPrefix(r.dir+": ", ".: ") + s.Suite + ": " + s.Name, Reason: string(s.Outcome) + ": " + detail(s), Evidence: ev}
			if e, err := evidence.Read(filepath.Join(root, filepath.FromSlash(ev))); err == nil {
				f.Timeline = Timeline(e, s.Records)
			}
			fails = append(fails, f)
		}
	}
	var rows []row
	var all []verdict.Spec
	for _, k := range order {
		rows = append(rows, summarise(k.cell, k.suite, k.spec, groups[k], links[k]))
		all = append(all, groups[k]...)
	}
	h, err := headingOf(title, root, runs, all)
	if err != nil {
		return err
	}
	cov := reports.CoverageOf(all)
	data := map[string]any{"Title": h.Title(), "Generated": time.Now().UTC().Format(time.RFC3339), "Rows": rows, "Failing": fails,
		"Judged": cov.Judgement(), "NotJudged": cov.NotJudged(), "Result": h.Result, "ResultDetail": h.Detail}
	return page.Execute(w, data)
}

func detail(s verdict.Spec) string {
	if s.Outcome == verdict.BrokenSpec {
		return strings.Join(s.Broken, ", ")
	}
	return s.Reason
}

// summarise is one row: outcomes over the runs, broken properties,
// figures and the median duration.
func summarise(cell, suite, spec string, runs []verdict.Spec, links []link) row {
	r := row{Cell: cell, Suite: suite, Spec: spec, Links: links}
	count := map[verdict.SpecOutcome]int{}
	var broken, names []string
	values := map[string][]string{}
	var took []float64
	for _, s := range runs {
		count[s.Outcome]++
		took = append(took, s.Seconds)
		for _, id := range s.Broken {
			if !slices.Contains(broken, id) {
				broken = append(broken, id)
			}
		}
		for _, rec := range s.Records {
			for _, name := range slices.Sorted(maps.Keys(rec.Figures)) {
				k := rec.ID + " " + name
				if values[k] == nil {
					names = append(names, k)
				}
				values[k] = append(values[k], rec.Figures[name])
			}
		}
	}
	var parts []string
	for _, o := range []verdict.SpecOutcome{verdict.BrokenSpec, verdict.Error, verdict.Passed, verdict.SkippedSpec} {
		if count[o] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d/%d", o, count[o], len(runs)))
			if r.Class == "" {
				r.Class = string(o)
			}
		}
	}
	slices.Sort(took)
	r.Outcomes, r.Broken = strings.Join(parts, ", "), strings.Join(broken, ", ")
	r.NotJudged = notJudged(runs)
	r.Median = fmt.Sprintf("%.1fs", took[len(took)/2])
	var figures []string
	for _, k := range names {
		figures = append(figures, k+": "+compact(values[k]))
	}
	r.Figures = strings.Join(figures, "; ")
	slices.SortStableFunc(r.Links, func(a, b link) int { return cmp.Compare(number(a.Text), number(b.Text)) })
	return r
}

// notJudged names what a spec's runs left unjudged of what it declares:
// the properties not bound, those of a skipped run.
func notJudged(runs []verdict.Spec) string {
	var notBound, skipped []string
	for _, s := range runs {
		for _, r := range s.NotBound() {
			if !slices.Contains(notBound, r.ID) {
				notBound = append(notBound, r.ID)
			}
		}
		if s.Outcome == verdict.SkippedSpec {
			list := &skipped
			if s.CapabilityUnbound() {
				list = &notBound
			}
			for _, id := range s.Declared {
				if !slices.Contains(*list, id) {
					*list = append(*list, id)
				}
			}
		}
	}
	var parts []string
	if len(notBound) > 0 {
		parts = append(parts, "not bound: "+strings.Join(notBound, ", "))
	}
	if len(skipped) > 0 {
		parts = append(parts, "skipped: "+strings.Join(skipped, ", "))
	}
	return strings.Join(parts, "; ")
}

// compact is a figure's values over the runs: "30s ×10" when they agree.
func compact(vs []string) string {
	if len(vs) > 1 && !slices.ContainsFunc(vs, func(v string) bool { return v != vs[0] }) {
		return fmt.Sprintf("%s ×%d", vs[0], len(vs))
	}
	return strings.Join(vs, ", ")
}

func number(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
