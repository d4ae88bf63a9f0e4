package zoo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/runs/exploration/tally"
)

// HuntConfig is one hunt's configuration (`make hunt`): every subject
// explored in turn with `steadystate explore --subject FILE --capability
// Capability --budget Budget --seed Seed --parallel Parallel --pattern
// Pattern`.
type HuntConfig struct {
	Capability string
	Budget     time.Duration
	Seed       uint64
	// Pattern draws every schedule in that pattern (explore --pattern);
	// "": explore's mix.
	Pattern string
	// Parallel is how many suite processes explore a subject side by
	// side, a cluster each (1: one, explore's default).
	Parallel int
	// SharedCluster has the Parallel processes share one cluster
	// (explore --shared-cluster).
	SharedCluster bool
	// Steadystate is the steadystate program; Artifacts the hunt's folder
	// (each subject's exploration in <Artifacts>/<subject>); Env is added
	// to every exploration's environment (LOCAL_NODES=on).
	Steadystate, Artifacts string
	Env                    []string
}

// HuntFinding is a schedule of the hunt that broke properties: to be
// triaged (harness defect, known upstream behaviour or new bug).
type HuntFinding struct {
	Spec   string   `json:"spec"`
	Broken []string `json:"broken"`
	// Schedule is the kept schedule, Evidence its history.txt.
	Schedule string `json:"schedule"`
	Evidence string `json:"evidence"`
}

// HuntRow is one subject's exploration.
type HuntRow struct {
	Subject    string        `json:"subject"`
	Capability string        `json:"capability"`
	Seed       uint64        `json:"seed"`
	Budget     time.Duration `json:"budget"`
	// Pattern is the pattern every schedule was drawn in; "": the mix.
	Pattern string `json:"pattern,omitempty"`
	// Parallel is how many suite processes explored it side by side;
	// SharedCluster says they shared one cluster.
	Parallel      int  `json:"parallel,omitempty"`
	SharedCluster bool `json:"sharedCluster,omitempty"`
	// Took is the exploration's wall time (cluster start and reference
	// runs included); Schedules how many schedules it judged (the
	// reference runs are none), References the fault-free runs.
	Took       time.Duration `json:"took"`
	Schedules  int           `json:"schedules"`
	References int           `json:"references"`
	// InSchedules and InReferences are the suite processes' time in
	// schedules and in reference runs, summed over the processes: where
	// the budget went (with several processes, two make one reference
	// run each and the others' first schedule waits for them).
	InSchedules  time.Duration `json:"inSchedules,omitempty"`
	InReferences time.Duration `json:"inReferences,omitempty"`
	// Covered is how many fault (or workload step) × resource × phase
	// combinations the schedules acted, the processes together, of
	// Possible, those the subject offers (tally.Coverage).
	Covered  int `json:"covered,omitempty"`
	Possible int `json:"possible,omitempty"`
	// Findings are the schedules (or reference runs) that broke
	// properties; Errors the reasons of those that ended in an error.
	Findings []HuntFinding `json:"findings,omitempty"`
	Errors   []string      `json:"errors,omitempty"`
	// Err says why the exploration left no report to read.
	Err string `json:"err,omitempty"`
	Dir string `json:"dir"`
}

// capability is the row's capability, and the pattern its schedules
// were drawn in when it is not the mix.
func (r HuntRow) capability() string {
	if r.Pattern == "" {
		return r.Capability
	}
	return r.Capability + " (" + r.Pattern + ")"
}

// PerMinute is the row's schedules per minute of wall time.
func (r HuntRow) PerMinute() float64 {
	if r.Took <= 0 {
		return 0
	}
	return float64(r.Schedules) / r.Took.Minutes()
}

// HuntTally reads an exploration's specs (its report) into r: schedules,
// reference runs, findings with their schedule and evidence under dir
// (the run's folder), errors. It returns the specs that ran, as read.
func HuntTally(r *HuntRow, specs []verdict.Spec, dir string) []tally.Spec {
	ran := tally.Specs(specs, dir)
	for _, s := range ran {
		took := time.Duration(s.Seconds * float64(time.Second))
		if s.Reference {
			r.References++
			r.InReferences += took
		} else {
			r.Schedules++
			r.InSchedules += took
		}
		switch s.Outcome {
		case verdict.BrokenSpec:
			r.Findings = append(r.Findings, HuntFinding{Spec: s.Name, Broken: s.Broken, Schedule: s.Schedule, Evidence: s.Evidence})
		case verdict.Passed:
		default:
			r.Errors = append(r.Errors, s.Name+": "+s.Reason)
		}
	}
	return ran
}

// Hunt explores every subject in turn, its output into explore.log of
// its folder and its spec and status lines onto progress, and returns a
// row each; it writes them as hunt.json and hunt.md into cfg.Artifacts.
// An exploration's own exit status is not the row (it fails on every
// finding): one that left no report is the row's Err.
func Hunt(ctx context.Context, cfg HuntConfig, subjects []Subject, progress io.Writer) ([]HuntRow, error) {
	var rows []HuntRow
	for i, s := range subjects {
		dir := filepath.Join(cfg.Artifacts, s.Name)
		r := HuntRow{Subject: s.Name, Capability: cfg.Capability, Seed: cfg.Seed, Budget: cfg.Budget, Pattern: cfg.Pattern, Parallel: max(cfg.Parallel, 1), SharedCluster: cfg.SharedCluster && cfg.Parallel > 1, Dir: dir}
		tag := fmt.Sprintf("[%d/%d] %s", i+1, len(subjects), s.Name)
		if err := os.RemoveAll(dir); err != nil {
			return rows, err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return rows, err
		}
		args := []string{"explore", "--subject", s.File, "--capability", cfg.Capability, "--budget", cfg.Budget.String(), "--seed", fmt.Sprint(cfg.Seed)}
		if r.Parallel > 1 {
			args = append(args, "--parallel", fmt.Sprint(r.Parallel))
		}
		if r.SharedCluster {
			args = append(args, "--shared-cluster")
		}
		if r.Pattern != "" {
			args = append(args, "--pattern", r.Pattern)
		}
		fmt.Fprintf(progress, "%s: steadystate %s (artifacts %s)\n", tag, strings.Join(args, " "), dir)
		start := time.Now()
		logPath := filepath.Join(dir, "explore.log")
		_, runErr := runLogged(ctx, logPath, Config{Steadystate: cfg.Steadystate, Env: cfg.Env}, "  "+tag+" | ", progress, args...)
		r.Took = time.Since(start)
		var missing []string
		var ran []tally.Spec
		for _, run := range huntRuns(filepath.Join(dir, "explore", "run"), r.Parallel) {
			reps, err := verdict.ReadReport(filepath.Join(run, "report.json"))
			if err != nil {
				missing = append(missing, err.Error())
				continue
			}
			for _, rep := range reps {
				ran = append(ran, HuntTally(&r, verdict.Specs(rep), run)...)
			}
		}
		r.Covered, r.Possible = tally.Coverage(ran)
		if len(missing) > 0 {
			r.Err = fmt.Sprintf("the exploration (%v) left no report: %s; see %s", runErr, strings.Join(missing, "; "), logPath)
		}
		fmt.Fprintf(progress, "%s: %d schedule(s) in %s (%.1f a minute), %d finding(s), %d error(s)%s\n", tag, r.Schedules, r.Took.Round(time.Second), r.PerMinute(), len(r.Findings), len(r.Errors), errSuffix(r.Err))
		rows = append(rows, r)
		if ctx.Err() != nil {
			return rows, ctx.Err()
		}
	}
	return rows, writeHunt(cfg.Artifacts, rows)
}

// huntRuns are the folders an exploration of parallel suite processes
// below run keeps its reports in: run itself for one process, its
// shard-1 ... shard-N for more (explore --parallel).
func huntRuns(run string, parallel int) []string {
	if parallel <= 1 {
		return []string{run}
	}
	dirs := make([]string, parallel)
	for i := range dirs {
		dirs[i] = filepath.Join(run, fmt.Sprintf("shard-%d", i+1))
	}
	return dirs
}

func errSuffix(err string) string {
	if err == "" {
		return ""
	}
	return "; " + err
}

// processes is the PROCESSES column: how many, and "one cluster" when
// they shared one.
func (r HuntRow) processes() string {
	if r.SharedCluster {
		return fmt.Sprintf("%d, one cluster", r.Parallel)
	}
	return fmt.Sprint(max(r.Parallel, 1))
}

// PrintHunt writes the hunt's table and every finding and error to w, and
// says whether the hunt was clean: every subject explored, no finding, no
// error.
func PrintHunt(w io.Writer, rows []HuntRow) bool {
	fmt.Fprintln(w, "| SUBJECT | CAPABILITY | SEED | BUDGET | PROCESSES | WALL | SCHEDULES | PER MINUTE | IN SCHEDULES | IN REFERENCE RUNS | COVERAGE | FINDINGS | ERRORS |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	clean := true
	for _, r := range rows {
		errs := fmt.Sprint(len(r.Errors))
		if r.Err != "" {
			errs = "no report"
		}
		coverage := "-"
		if r.Possible > 0 {
			coverage = fmt.Sprintf("%d of %d", r.Covered, r.Possible)
		}
		fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %s | %d | %.1f | %s | %d, %s | %s | %d | %s |\n", r.Subject, r.capability(), r.Seed, r.Budget, r.processes(), r.Took.Round(time.Second), r.Schedules, r.PerMinute(), r.InSchedules.Round(time.Second), r.References, r.InReferences.Round(time.Second), coverage, len(r.Findings), errs)
		clean = clean && r.Err == "" && len(r.Findings) == 0 && len(r.Errors) == 0 && r.Schedules > 0
	}
	for _, r := range rows {
		for _, f := range r.Findings {
			fmt.Fprintf(w, "\nfinding (to triage): %s: %s broke %s\n  schedule: %s\n  evidence: %s\n", r.Subject, f.Spec, strings.Join(f.Broken, ", "), f.Schedule, f.Evidence)
		}
		for _, e := range r.Errors {
			fmt.Fprintf(w, "\nerror: %s: %s\n", r.Subject, e)
		}
		if r.Err != "" {
			fmt.Fprintf(w, "\nerror: %s: %s\n", r.Subject, r.Err)
		} else if r.Schedules == 0 {
			fmt.Fprintf(w, "\nerror: %s: no schedule ran; see %s\n", r.Subject, filepath.Join(r.Dir, "explore.log"))
		}
	}
	return clean
}

// writeHunt keeps the rows as hunt.json and the table as hunt.md.
func writeHunt(dir string, rows []HuntRow) error {
	data, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "hunt.json"), data, 0o644); err != nil {
		return err
	}
	var b strings.Builder
	PrintHunt(&b, rows)
	return os.WriteFile(filepath.Join(dir, "hunt.md"), []byte(b.String()), 0o644)
}
