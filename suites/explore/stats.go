package explore

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/chaos/schedule"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/runs/exploration/phases"
	"github.com/steadystate-dev/steadystate/runs/exploration/tally"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// stats are the run's schedules so far: how many, how fast, what they
// covered and what they found; a status line after each.
type stats struct {
	c     Config
	mu    sync.Mutex
	start time.Time
	// schedules judged, findings among them, errors.
	schedules, findings, errors int
	// covered are the fault (or workload step) x resource x phase
	// combinations tried, of all.
	covered map[string]bool
	all     int
	// refs are a reconciledObjects run's reference end states, which its
	// first specs make and each schedule is compared with;
	// referenceSpecs the index of each reference run's spec, by its text.
	refs           *endStates
	referenceSpecs map[string]int
}

func newStats(c Config) *stats {
	refs := &endStates{}
	if c.sharesReferences() {
		refs.shared = c.SharedReferences
	}
	return &stats{c: c, covered: map[string]bool{}, refs: refs, referenceSpecs: map[string]int{}}
}

// spent reports whether the budget is spent; the first call starts it.
func (st *stats) spent() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.start.IsZero() {
		st.start = time.Now()
	}
	return time.Since(st.start) >= st.c.Budget
}

// found reports whether a schedule has broken a property.
func (st *stats) found() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.findings > 0
}

// possible counts the combinations d's schedules can try, once.
func (st *stats) possible(d driver) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.all > 0 {
		return
	}
	l := drawLimits(d, st.c.Pattern)
	offered := func(name string, k schedule.Kind) bool {
		return k.For(st.c.Capability) && !slices.Contains(l.Without, name)
	}
	// A pattern draws among its own faults (the mix and "any" among all
	// but the aimed ones), or among all when the subject is offered none
	// of them.
	only := schedule.PatternFaults(l.Pattern)
	if !slices.ContainsFunc(only, func(name string) bool { return offered(name, schedule.Faults[name]) }) {
		only = nil
	}
	for name, k := range schedule.Faults {
		drawn := slices.Contains(only, name)
		if only == nil {
			drawn = !slices.Contains(schedule.Aimed, name)
		}
		if !offered(name, k) || !drawn {
			continue
		}
		if k.Takes(schedule.Resource) {
			st.all += len(schedule.Drawn(st.c.Capability, name, l)) * len(d.phases())
		} else {
			st.all += len(d.phases())
		}
	}
	for _, k := range schedule.Workloads {
		if k.For(st.c.Capability) {
			st.all += len(d.phases())
		}
	}
}

// tried counts a step that acted: not one that was not done (its
// trigger never came) nor one that failed.
func (st *stats) tried(s schedule.Step, o outcome) (string, bool) {
	if !o.acted() {
		return "", false
	}
	k := s.Name() + "/" + s.Resource + "/" + o.Phase
	st.mu.Lock()
	st.covered[k] = true
	st.mu.Unlock()
	return k, true
}

// coverage is what the schedule's report keeps of its coverage: the
// combinations it acted (tally.CoveredEntry), and how many the subject
// offers (tally.PossibleEntry), which a run's processes add up.
func (st *stats) coverage(covered []string) {
	st.mu.Lock()
	all := st.all
	st.mu.Unlock()
	slices.Sort(covered)
	AddReportEntry(tally.CoveredEntry, ReportEntryVisibilityNever, append([]string{}, covered...))
	AddReportEntry(tally.PossibleEntry, ReportEntryVisibilityNever, all)
}

// done counts a finished spec and sends the status line; a reference
// run's, however it ended, is marked ended for the processes that share
// it.
func (st *stats) done(r SpecReport) {
	if i, ok := st.referenceSpecs[r.LeafNodeText]; ok {
		if err := st.refs.ended(i); err != nil {
			testenv.Status(fmt.Sprintf("%s: not shared with the other processes: %v", r.LeafNodeText, err))
		}
	}
	if r.State.Is(types.SpecStateSkipped) {
		return
	}
	v := verdict.Classify(Title, r)
	if tally.IsReference(r.LeafNodeText) {
		what := string(v.Outcome)
		if v.Outcome != verdict.Passed {
			what += ": " + strings.TrimSpace(strings.Join(v.Broken, ", ")+" "+v.Reason)
		}
		testenv.Status(fmt.Sprintf("%s: %s in %s (no schedule: the end state the schedules are compared with)", r.LeafNodeText, what, r.RunTime.Round(time.Second)))
		return
	}
	st.mu.Lock()
	st.schedules++
	what := string(v.Outcome)
	switch v.Outcome {
	case verdict.BrokenSpec:
		st.findings++
		what = "broke " + strings.Join(v.Broken, ", ")
	case verdict.Error:
		st.errors++
		reason, _, _ := strings.Cut(v.Reason, "\n")
		what = "error: " + reason
	}
	if n := len(tally.NotDone(r)); n > 0 {
		what += fmt.Sprintf(" (%d step(s) not done)", n)
	}
	minutes := time.Since(st.start).Minutes()
	shard := ""
	if st.c.Shards > 1 {
		shard = fmt.Sprintf("shard %d of %d: ", st.c.Shard+1, st.c.Shards)
	}
	line := fmt.Sprintf("%s: %s in %s [%s] | %s%d schedules, %.1f/min, coverage %d/%d, findings %d, errors %d",
		r.LeafNodeText, what, r.RunTime.Round(time.Second), phases.Of(r), shard, st.schedules, float64(st.schedules)/max(minutes, 1.0/60), len(st.covered), st.all, st.findings, st.errors)
	st.mu.Unlock()
	testenv.Status(line)
}
