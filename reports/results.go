package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/judge/catalog"
)

// ResultsDir holds the result sets the results page is generated from,
// one JSON file per set, and ResultsPage is that page.
const (
	ResultsDir  = "docs/results"
	ResultsPage = "docs/results.md"
)

// ResultSet is one matrix run as the results page shows it, stamped with
// the commit it ran at, the day, and the command that reproduces it. It is
// made from the run's matrix.json (NewResultSet) and kept in ResultsDir,
// so the page is generated, never retyped.
type ResultSet struct {
	// Name names the page's block the set fills (<!-- results:Name -->).
	Name    string      `json:"name"`
	Command string      `json:"command"`
	Commit  string      `json:"commit"`
	Date    string      `json:"date"`
	Rows    []ResultRow `json:"rows"`
	// Summary is the matrix's closing count ("15 as intended, 0 not").
	Summary string `json:"summary"`
}

// ResultRow is one cell: its verdict over every run, the median run's
// wall time, and the figures its runs measured beyond their bounds.
type ResultRow struct {
	Suite   string `json:"suite"`
	Subject string `json:"subject"`
	Mode    string `json:"mode"`
	Runs    int    `json:"runs"`
	Median  string `json:"median"`
	Verdict string `json:"verdict"`
	Figures string `json:"figures,omitempty"`
}

// NewResultSet summarizes cells, run by command at commit on date.
func NewResultSet(name, command, commit, date string, cells []Cell) ResultSet {
	s := ResultSet{Name: name, Command: command, Commit: commit, Date: date}
	for _, c := range cells {
		v, _ := c.Verdict()
		s.Rows = append(s.Rows, ResultRow{Suite: c.Suite, Subject: c.Subject, Mode: c.Mode(), Runs: len(c.Runs),
			Median: medianTook(c.Runs).Round(100 * time.Millisecond).String(), Verdict: v, Figures: measured(c)})
	}
	s.Summary, _ = Count(cells)
	return s
}

// measured lists a cell's figures other than bounds, run by run:
// "recovery 40.0s, 40.1s; failover 3.2s".
func measured(c Cell) string {
	values := map[string][]string{}
	for _, r := range c.Runs {
		for _, s := range r.Specs {
			for _, rec := range s.Records {
				for name, v := range rec.Figures {
					if name == "bound" || strings.HasSuffix(name, "Duration") || strings.HasSuffix(name, "Period") {
						continue
					}
					values[name] = append(values[name], v)
				}
			}
		}
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(values)) {
		parts = append(parts, name+" "+strings.Join(values[name], ", "))
	}
	return strings.Join(parts, "; ")
}

// Markdown is the set's block: a stamp line and its table.
func (s ResultSet) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "`%s` at commit %s, %s: %s.\n\n", s.Command, s.Commit, s.Date, s.Summary)
	b.WriteString("| suite | subject | mode | runs | median | verdict | figures (run by run) |\n|---|---|---|---|---|---|---|\n")
	for _, r := range s.Rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %s | %s | %s |\n", r.Suite, r.Subject, r.Mode, r.Runs, r.Median, cell(r.Verdict), cell(r.Figures))
	}
	if score := s.MutationScore(); score != "" {
		b.WriteString("\n" + score)
	}
	return b.String()
}

// MutationScore is the set's score as a test of its oracle, property by
// property: of the seeded bugs (the mutants) each property is declared
// to catch, how many were caught, each on exactly its declared
// properties in every run; and how many correct modes passed. Empty for
// a set with no seeded bug. The bugs are looked up in the catalog by
// mode.
func (s ResultSet) MutationScore() string {
	type score struct{ caught, all int }
	per := map[string]*score{}
	total, correct, passed := score{}, 0, 0
	for _, r := range s.Rows {
		if r.Mode == "correct" {
			correct++
			if strings.HasPrefix(r.Verdict, "passed") {
				passed++
			}
			continue
		}
		b, ok := catalog.Lookup(r.Mode)
		if !ok {
			continue
		}
		caught := strings.HasPrefix(r.Verdict, Caught)
		total.all++
		if caught {
			total.caught++
		}
		for _, id := range b.Breaks {
			if per[id] == nil {
				per[id] = &score{}
			}
			per[id].all++
			if caught {
				per[id].caught++
			}
		}
	}
	if total.all == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Mutation score: %d of %d seeded bugs caught on exactly their declared properties in every run (%.0f %%); %d of %d correct modes passed in every run.\n\n", total.caught, total.all, 100*float64(total.caught)/float64(total.all), passed, correct)
	b.WriteString("| property | seeded bugs declared to break it | caught | score |\n|---|---|---|---|\n")
	for _, id := range slices.Sorted(maps.Keys(per)) {
		sc := per[id]
		fmt.Fprintf(&b, "| `%s` | %d | %d | %.0f %% |\n", id, sc.all, sc.caught, 100*float64(sc.caught)/float64(sc.all))
	}
	return b.String()
}

// ReadResultSets reads every set in dir, by name.
func ReadResultSets(dir string) (map[string]ResultSet, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sets := map[string]ResultSet{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var s ResultSet
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if want := strings.TrimSuffix(filepath.Base(f), ".json"); s.Name != want {
			return nil, fmt.Errorf("%s: names set %q; want %q, its file's name", f, s.Name, want)
		}
		sets[s.Name] = s
	}
	return sets, nil
}

var resultsBlock = regexp.MustCompile(`(?s)(<!-- results:([a-z0-9-]+) -->\n).*?(<!-- /results:([a-z0-9-]+) -->)`)

// SpliceResults fills each block of page, from "<!-- results:NAME -->" to
// "<!-- /results:NAME -->", with set NAME. A block without its set, or a
// set no block shows, is an error naming it.
func SpliceResults(page []byte, sets map[string]ResultSet) ([]byte, error) {
	var errs []string
	used := map[string]bool{}
	out := resultsBlock.ReplaceAllFunc(page, func(m []byte) []byte {
		g := resultsBlock.FindSubmatch(m)
		name, end := string(g[2]), string(g[4])
		if name != end {
			errs = append(errs, fmt.Sprintf("block %q ends as %q", name, end))
			return m
		}
		s, ok := sets[name]
		if !ok {
			errs = append(errs, fmt.Sprintf("block %q has no set %s/%s.json", name, ResultsDir, name))
			return m
		}
		used[name] = true
		return []byte(string(g[1]) + s.Markdown() + string(g[3]))
	})
	for _, name := range slices.Sorted(maps.Keys(sets)) {
		if !used[name] {
			errs = append(errs, fmt.Sprintf("set %s/%s.json has no block <!-- results:%s --> in %s", ResultsDir, name, name, ResultsPage))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return out, nil
}

// CheckSetName accepts a result set's name: lower-case letters, digits
// and dashes, its file's and its block's name.
func CheckSetName(name string) error {
	if name == "" || strings.ContainsAny(name, "/ .") || strings.ToLower(name) != name {
		return errors.New("results needs --name, a lower-case name of letters, digits and dashes (selftest, upstream-kind)")
	}
	return nil
}

// CheckoutCommit is the short commit of the checkout in the working
// folder, which a result set is stamped with: rev (HEAD when empty).
func CheckoutCommit(rev string) (string, error) {
	if rev == "" {
		rev = "HEAD"
	}
	commit, err := exec.Command("git", "rev-parse", "--short", "--verify", "--quiet", rev+"^{commit}").Output()
	if err != nil {
		return "", fmt.Errorf("the commit %q of the checkout (git rev-parse): %w: run results in the steadystate checkout the run was made from, naming one of its commits", rev, err)
	}
	return strings.TrimSpace(string(commit)), nil
}

// KeepResultSet makes set name from run's matrix.json, stamped with
// commit, today's date and command, and writes it to dir/name.json.
func KeepResultSet(run, name, command, commit, dir string) (path string, s ResultSet, err error) {
	if err := CheckSetName(name); err != nil {
		return "", s, err
	}
	matrixFile := filepath.Join(run, "matrix.json")
	data, err := os.ReadFile(matrixFile)
	if err != nil {
		return "", s, fmt.Errorf("%w: give the folder a selftest, upstream or conform run printed", err)
	}
	var cells []Cell
	if err := json.Unmarshal(data, &cells); err != nil {
		return "", s, fmt.Errorf("%s: %w", matrixFile, err)
	}
	s = NewResultSet(name, command, commit, time.Now().UTC().Format(time.DateOnly), cells)
	out, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return "", s, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", s, err
	}
	path = filepath.Join(dir, name+".json")
	return path, s, os.WriteFile(path, append(out, '\n'), 0o644)
}
