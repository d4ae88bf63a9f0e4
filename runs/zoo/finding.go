package zoo

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/steadystate-dev/steadystate/chaos/schedule"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/runs/exploration/tally"
)

// Finding is a finding of the zoo kept to be reproduced with one command
// (`make zoo-repro FINDING=<name>`): a file <name>.yaml of the findings
// folder naming, relative to the module's root, the subject file and the
// shrunk schedule that breaks it, how many replays to run, how many of
// them must break the schedule's properties, and the docs page that
// explains it.
type Finding struct {
	Name string `json:"-"`
	// Subject is the subject file, Schedule the schedule replayed
	// (`steadystate explore --subject Subject --replay Schedule`).
	Subject  string `json:"subject"`
	Schedule string `json:"schedule"`
	// Replays is how many times the schedule is replayed; AtLeast how
	// many of them must break every property the schedule names.
	Replays int `json:"replays"`
	AtLeast int `json:"atLeast"`
	// Page is the docs page of the finding.
	Page string `json:"page"`
	// Evidence is a breaking replay's evidence.json, kept: the zoo's
	// tests re-judge it with no cluster, so a judge change that would no
	// longer call the finding broken fails them before anyone replays it.
	Evidence string `json:"evidence,omitempty"`
	// Unshown says why, and since when, the suite no longer shows the
	// finding: a harness or judge change that counts what showed it as
	// part of a fault's recovery. Its kept evidence then re-judges with
	// none of the schedule's properties broken (the zoo's tests hold it
	// to that), and its replays are expected not to reproduce it.
	Unshown string `json:"unshown,omitempty"`
	// Breaks are the properties the schedule breaks (its breaks:).
	Breaks []string `json:"-"`
}

// FindingNames are the names of the findings of dir (its *.yaml), sorted.
func FindingNames(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".yaml"))
	}
	slices.Sort(names)
	return names, nil
}

// LoadFinding reads the finding name of dir, with paths relative to root,
// and checks that its files are there and its schedule names what it
// breaks. An empty or unknown name is refused in one line naming the
// valid ones.
func LoadFinding(dir, root, name string) (Finding, error) {
	names, err := FindingNames(dir)
	if err != nil {
		return Finding{}, err
	}
	if !slices.Contains(names, name) {
		return Finding{}, fmt.Errorf("zoo-repro: FINDING=%q is not a finding of %s; give one of: %s", name, dir, strings.Join(names, ", "))
	}
	path := filepath.Join(dir, name+".yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		return Finding{}, err
	}
	f := Finding{Name: name}
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		return f, fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case f.Subject == "" || f.Schedule == "" || f.Page == "":
		return f, fmt.Errorf("%s: give subject, schedule and page (files relative to the module's root)", path)
	case f.Replays < 1 || f.AtLeast < 1 || f.AtLeast > f.Replays:
		return f, fmt.Errorf("%s: replays %d, atLeast %d: give 1 <= atLeast <= replays", path, f.Replays, f.AtLeast)
	}
	for _, p := range []string{f.Subject, f.Schedule, f.Page, f.Evidence} {
		if p == "" {
			continue // no evidence kept
		}
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			return f, fmt.Errorf("%s: %w", path, err)
		}
	}
	s, err := schedule.Load(filepath.Join(root, f.Schedule))
	if err != nil {
		return f, err
	}
	if s.Breaks == "" {
		return f, fmt.Errorf("%s: the schedule %s names no property it breaks (breaks:)", path, f.Schedule)
	}
	f.Breaks = strings.Split(s.Breaks, ",")
	return f, nil
}

// ReproTally is what the replays of a finding's schedule did: per
// property, how many replays broke it.
type ReproTally struct {
	// Replays is how many replays ran (the fault-free reference runs are
	// none); Reproduced how many broke every property of the schedule's
	// breaks:, exactly those.
	Replays, Reproduced int
	// Broken counts, per property, the replays that broke it.
	Broken map[string]int
	// Held and Errors count the replays that broke nothing and those
	// that ended in an error (their verdict unknown).
	Held, Errors int
	// Reasons are the errors' reasons.
	Reasons []string
}

// Tally counts the replays among specs (an exploration run's) against
// the schedule's properties breaks.
func Tally(specs []verdict.Spec, breaks []string) ReproTally {
	t := ReproTally{Broken: map[string]int{}}
	for _, s := range tally.Specs(specs, "") {
		if s.Reference {
			continue
		}
		t.Replays++
		switch s.Outcome {
		case verdict.BrokenSpec:
			for _, p := range s.Broken {
				t.Broken[p]++
			}
			if slices.Equal(slices.Sorted(slices.Values(s.Broken)), slices.Sorted(slices.Values(breaks))) {
				t.Reproduced++
			}
		case verdict.Passed:
			t.Held++
		default:
			t.Errors++
			t.Reasons = append(t.Reasons, s.Reason)
		}
	}
	return t
}

// Print writes the tally of f's replays to w and says whether the
// finding reproduced: at least f.AtLeast replays broke every property
// of its schedule, and no replay ended in an error.
func (t ReproTally) Print(w io.Writer, f Finding) bool {
	fmt.Fprintf(w, "zoo-repro %s: %d replay(s) of %s against %s\n", f.Name, t.Replays, f.Schedule, f.Subject)
	var props []string
	for p := range t.Broken {
		props = append(props, p)
	}
	slices.Sort(props)
	for _, p := range props {
		fmt.Fprintf(w, "  %s broken in %d of %d\n", p, t.Broken[p], t.Replays)
	}
	fmt.Fprintf(w, "  broke %s in %d of %d; broke nothing in %d; error in %d\n", strings.Join(f.Breaks, " and "), t.Reproduced, t.Replays, t.Held, t.Errors)
	for _, r := range t.Reasons {
		fmt.Fprintf(w, "  error: %s\n", r)
	}
	ok := t.Reproduced >= f.AtLeast && t.Errors == 0
	verdictLine := "reproduced"
	if !ok {
		verdictLine = "NOT reproduced"
	}
	fmt.Fprintf(w, "zoo-repro %s: %s (%d of %d replays, at least %d asked; see %s)\n", f.Name, verdictLine, t.Reproduced, t.Replays, f.AtLeast, f.Page)
	if f.Unshown != "" {
		fmt.Fprintf(w, "zoo-repro %s: not expected to reproduce: %s\n", f.Name, f.Unshown)
	}
	return ok
}

// ReproConfig is one `make zoo-repro` run's configuration.
type ReproConfig struct {
	// Root is the module's root, where the finding's files are named.
	Root string
	// Steadystate is the steadystate program; Artifacts the run's folder
	// (the exploration's go in its explore/); Env is added to the
	// exploration's environment (LOCAL_NODES=on).
	Steadystate, Artifacts string
	Env                    []string
}

// Repro replays f's schedule f.Replays times with `steadystate explore`,
// its output into explore.log in cfg.Artifacts and onto progress, and
// tallies the replays from the exploration's report. The exploration's
// own exit status is not the verdict (it fails on every finding): a run
// that left no report is the error.
func Repro(ctx context.Context, cfg ReproConfig, f Finding, progress io.Writer) (ReproTally, error) {
	if err := os.MkdirAll(cfg.Artifacts, 0o755); err != nil {
		return ReproTally{}, err
	}
	args := []string{"explore", "--subject", filepath.Join(cfg.Root, f.Subject), "--replay", filepath.Join(cfg.Root, f.Schedule),
		"--repeat", fmt.Sprint(f.Replays)}
	fmt.Fprintf(progress, "zoo-repro %s: steadystate %s (ARTIFACTS=%s %s)\n", f.Name, strings.Join(args, " "), cfg.Artifacts, strings.Join(cfg.Env, " "))
	report := filepath.Join(cfg.Artifacts, "explore", "run", "report.json")
	if err := os.Remove(report); err != nil && !os.IsNotExist(err) {
		return ReproTally{}, err
	}
	logPath := filepath.Join(cfg.Artifacts, "explore.log")
	_, runErr := runLogged(ctx, logPath, Config{Steadystate: cfg.Steadystate, Env: cfg.Env}, "  ", progress, args...)
	reps, err := verdict.ReadReport(report)
	if err != nil {
		return ReproTally{}, fmt.Errorf("zoo-repro %s: the exploration (%v) left no report to tally: %w; see %s", f.Name, runErr, err, logPath)
	}
	var specs []verdict.Spec
	for _, rep := range reps {
		specs = append(specs, verdict.Specs(rep)...)
	}
	return Tally(specs, f.Breaks), nil
}
