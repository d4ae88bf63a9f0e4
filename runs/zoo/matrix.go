package zoo

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/reports"
)

// letter is a run's verdict in one letter, for the per-run columns.
func letter(kind string) string {
	switch kind {
	case reports.Passed:
		return "P"
	case reports.PassedWithGaps:
		return "G"
	case reports.Broken:
		return "B"
	case reports.Error:
		return "E"
	}
	return "N"
}

// Legend explains the per-run letters.
const Legend = "per run: P passed, G passed with gaps (a spec skipped), B broken (a finding), E error (the harness or the set-up), N not passed otherwise"

// cells are a subject's suites, each with every run's verdicts: a run
// that left no matrix is an error run of every suite the others ran (of
// "conform" when none did).
func (r Result) cells() []reports.Cell {
	var out []reports.Cell
	index := map[string]int{}
	for _, run := range r.Runs {
		for _, c := range run.Cells {
			if _, ok := index[c.Suite]; !ok {
				index[c.Suite] = len(out)
				c.Runs = nil
				out = append(out, c)
			}
		}
	}
	if len(out) == 0 {
		out = append(out, reports.Cell{Suite: "conform", Subject: r.Subject.Name, Conformance: true, MaySkip: true})
	}
	for _, run := range r.Runs {
		for i := range out {
			j := slices.IndexFunc(run.Cells, func(c reports.Cell) bool { return c.Suite == out[i].Suite })
			switch {
			case run.Err != "":
				out[i].Runs = append(out[i].Runs, reports.Run{Err: run.Err, Dir: run.Dir, Took: run.Took})
			case j < 0 || len(run.Cells[j].Runs) == 0:
				out[i].Runs = append(out[i].Runs, reports.Run{Err: "the suite did not run", Dir: run.Dir})
			default:
				out[i].Runs = append(out[i].Runs, run.Cells[j].Runs...)
			}
		}
	}
	return out
}

// table is a header and rows, printed as text or Markdown.
type table struct {
	header []string
	rows   [][]string
}

func (t table) text(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(t.header, "\t"))
	for _, r := range t.rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
}

func (t table) markdown(w io.Writer) {
	fmt.Fprintf(w, "| %s |\n", strings.Join(t.header, " | "))
	fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(t.header)))
	for _, r := range t.rows {
		var cells []string
		for _, c := range r {
			cells = append(cells, strings.ReplaceAll(c, "|", `\|`))
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.0fs", d.Seconds()) }

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// verdicts is the matrix's main table: per subject and suite, each run's
// letter and the verdict over the runs.
func (m *Matrix) verdicts() (table, int, int) {
	t := table{header: []string{"SUBJECT", "SUITE", "RUNS", "PER RUN", "VERDICT"}}
	good, all := 0, 0
	for _, r := range m.Results {
		for _, c := range r.cells() {
			var letters []string
			for _, run := range c.Runs {
				kind, _ := c.Judge(run)
				letters = append(letters, letter(kind))
				all++
				if kind == reports.Passed || kind == reports.PassedWithGaps {
					good++
				}
			}
			v, _ := c.Verdict()
			t.rows = append(t.rows, []string{r.Subject.Name, c.Suite, fmt.Sprint(len(c.Runs)), strings.Join(letters, " "), v})
		}
	}
	return t, good, all
}

// times is per subject the wall time of its conform runs and what verify
// said of their bundles.
func (m *Matrix) times() table {
	t := table{header: []string{"SUBJECT", "RUNS", "WALL MEDIAN", "WALL MAX", "WALL TOTAL", "BUNDLES VERIFIED"}}
	for _, r := range m.Results {
		var ds []time.Duration
		var total time.Duration
		ok := 0
		for _, run := range r.Runs {
			ds = append(ds, run.Took)
			total += run.Took
			if run.VerifiedOK {
				ok++
			}
		}
		t.rows = append(t.rows, []string{r.Subject.Name, fmt.Sprint(len(r.Runs)), seconds(median(ds)), seconds(slices.Max(append(ds, 0))), seconds(total), fmt.Sprintf("%d/%d", ok, len(r.Runs))})
	}
	return t
}

// specs is per subject, suite and spec each run's outcome and the spec's
// median and longest time.
func (m *Matrix) specs() table {
	t := table{header: []string{"SUBJECT", "SUITE", "SPEC", "PER RUN", "MEDIAN", "MAX"}}
	for _, r := range m.Results {
		for _, c := range r.cells() {
			var names []string
			outcomes := map[string][]string{}
			times := map[string][]time.Duration{}
			for _, run := range c.Runs {
				for _, s := range run.Specs {
					if !slices.Contains(names, s.Name) {
						names = append(names, s.Name)
					}
					outcomes[s.Name] = append(outcomes[s.Name], specLetter(s))
					times[s.Name] = append(times[s.Name], time.Duration(s.Seconds*float64(time.Second)))
				}
			}
			for _, n := range names {
				t.rows = append(t.rows, []string{r.Subject.Name, c.Suite, n, strings.Join(outcomes[n], " "), seconds(median(times[n])), seconds(slices.Max(times[n]))})
			}
		}
	}
	return t
}

// specLetter is a spec's outcome in one letter: P passed, B broken, E
// error, S skipped.
func specLetter(s verdict.Spec) string {
	switch s.Outcome {
	case verdict.Passed:
		return "P"
	case verdict.BrokenSpec:
		return "B"
	case verdict.Error:
		return "E"
	case verdict.SkippedSpec:
		return "S"
	}
	return "?"
}

// notPassed lists every run that did not pass, with what it said and
// where its artifacts are: what triage starts from.
func (m *Matrix) notPassed() []string {
	var out []string
	for _, r := range m.Results {
		for _, c := range r.cells() {
			for i, run := range c.Runs {
				kind, detail := c.Judge(run)
				if kind == reports.Passed || kind == reports.PassedWithGaps {
					continue
				}
				n := i + 1 // a run of each conform run, in order
				if i < len(r.Runs) {
					n = r.Runs[i].N
				}
				out = append(out, fmt.Sprintf("%s run %d, %s: %s: %s (%s)", r.Subject.Name, n, c.Suite, kind, detail, run.Dir))
			}
		}
	}
	return out
}

// sideBySide says how many runs went side by side, when more than one
// did.
func (m *Matrix) sideBySide() string {
	if m.Parallel < 2 {
		return ""
	}
	return fmt.Sprintf(", %d side by side", m.Parallel)
}

// Print writes the matrix as text: the verdicts, the per-spec times, the
// wall times, the runs that did not pass, and a closing line. ok says
// whether every run of every subject passed.
func (m *Matrix) Print(w io.Writer) (ok bool) {
	v, good, all := m.verdicts()
	fmt.Fprintf(w, "\nzoo: %d subject(s) x %d run(s)%s, %s in all (%s)\n", len(m.Results), m.Runs, m.sideBySide(), m.Took.Round(time.Second), Legend)
	v.text(w)
	fmt.Fprintln(w)
	m.specs().text(w)
	fmt.Fprintln(w)
	m.times().text(w)
	if np := m.notPassed(); len(np) > 0 {
		fmt.Fprintln(w, "\nnot passed:")
		for _, l := range np {
			fmt.Fprintln(w, "  "+l)
		}
	}
	fmt.Fprintf(w, "zoo: %d of %d suite runs passed\n", good, all)
	return good == all
}

// Markdown writes the matrix as Markdown, for the docs.
func (m *Matrix) Markdown(w io.Writer) {
	v, good, all := m.verdicts()
	fmt.Fprintf(w, "%d subject(s) x %d run(s)%s, started %s, %s in all; %d of %d suite runs passed (%s).\n\n",
		len(m.Results), m.Runs, m.sideBySide(), m.Started.UTC().Format(time.RFC3339), m.Took.Round(time.Second), good, all, Legend)
	v.markdown(w)
	fmt.Fprintln(w)
	m.specs().markdown(w)
	fmt.Fprintln(w)
	m.times().markdown(w)
	if np := m.notPassed(); len(np) > 0 {
		fmt.Fprintln(w, "\nNot passed:")
		fmt.Fprintln(w)
		for _, l := range np {
			fmt.Fprintln(w, "- "+l)
		}
	}
}

// write keeps the matrix in dir as zoo.json and zoo.md.
func (m *Matrix) write(dir string) error {
	data, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "zoo.json"), data, 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "zoo.md"))
	if err != nil {
		return err
	}
	m.Markdown(f)
	return f.Close()
}

// Read reads a matrix written before (zoo.json in dir).
func Read(dir string) (*Matrix, error) {
	data, err := os.ReadFile(filepath.Join(dir, "zoo.json"))
	if err != nil {
		return nil, err
	}
	var m Matrix
	return &m, json.Unmarshal(data, &m)
}
