package phases

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

// The phases of a schedule, in order: where its time goes.
const (
	// SetUp runs from the spec's start (its namespace) through the
	// subject's start to the steady state the schedule starts from.
	SetUp = iota
	// Steps holds the schedule's steps: its faults held, its workload
	// steps made.
	Steps
	// Convergence is the recovery once the steps are done (a stopped
	// replica started again, a reconciledObjects binding's remaining changes)
	// and every wait for the subject to converge.
	Convergence
	// Judging evaluates the properties on the spec's history: the
	// assumptions and invariants, and every judgement again on the final
	// evidence.
	Judging
	// TearDown stops the subject and deletes the spec's namespace.
	TearDown
	count
)

// Names are the phases' names, by phase.
var Names = [count]string{"set-up", "steps", "convergence", "judging", "tear-down"}

// Entry is the report entry a schedule adds as it enters a phase: its
// value the phase's name, its time when.
const Entry = "phase"

// Times is how long a schedule spent in each phase, by phase.
type Times [count]time.Duration

// Last is the phase the entries mark last; SetUp when none.
func Last(entries types.ReportEntries) int {
	last := SetUp
	for _, e := range entries {
		if p, ok := phaseOf(e); ok {
			last = p
		}
	}
	return last
}

// phaseOf is the phase an Entry marks, as the suite made it or as read
// back from its JSON.
func phaseOf(e types.ReportEntry) (int, bool) {
	if e.Name != Entry {
		return 0, false
	}
	name, ok := e.Value.GetRawValue().(string)
	if !ok && json.Unmarshal([]byte(e.Value.AsJSON), &name) != nil {
		return 0, false
	}
	i := slices.Index(Names[:], name)
	return i, i >= 0
}

// Of is how long the spec of report r spent in each phase: from its start
// in SetUp, each Entry begins a phase that lasts to the next one, and the
// last to the spec's end.
func Of(r types.SpecReport) Times {
	var out Times
	phase, since := SetUp, r.StartTime
	for _, e := range r.ReportEntries {
		p, ok := phaseOf(e)
		if !ok {
			continue
		}
		at := e.Time
		if at.Before(since) {
			at = since
		}
		out[phase] += at.Sub(since)
		phase, since = p, at
	}
	if r.EndTime.After(since) {
		out[phase] += r.EndTime.Sub(since)
	}
	return out
}

// Total is the time over every phase.
func (p Times) Total() time.Duration {
	var t time.Duration
	for _, d := range p {
		t += d
	}
	return t
}

// String is the phases' times, compactly: "set-up 4.2s, steps 3.1s, ...".
func (p Times) String() string {
	parts := make([]string, len(p))
	for i, d := range p {
		parts[i] = Names[i] + " " + roundDuration(d).String()
	}
	return strings.Join(parts, ", ")
}

// roundDuration rounds d to a tenth of a second below 10s, else to the
// second.
func roundDuration(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

// Figure is one phase over a run's schedules: the median time a schedule
// spent in it, and its share of the schedules' total time.
type Figure struct {
	Phase         string  `json:"phase"`
	MedianSeconds float64 `json:"medianSeconds"`
	Share         float64 `json:"share"`
}

// Summary is where a run's schedules' time went.
type Summary struct {
	Schedules int `json:"schedules"`
	// MedianSeconds is the median of the schedules' total times.
	MedianSeconds float64  `json:"medianSeconds"`
	Phases        []Figure `json:"phases"`
}

// Summarise is the median time per phase over the schedules' times, and
// each phase's share of their summed total.
func Summarise(schedules []Times) Summary {
	s := Summary{Schedules: len(schedules)}
	var sums Times
	var all time.Duration
	totals := make([]time.Duration, len(schedules))
	for i, p := range schedules {
		for j, d := range p {
			sums[j] += d
		}
		totals[i] = p.Total()
		all += totals[i]
	}
	s.MedianSeconds = median(totals).Seconds()
	for j := range count {
		each := make([]time.Duration, len(schedules))
		for i, p := range schedules {
			each[i] = p[j]
		}
		f := Figure{Phase: Names[j], MedianSeconds: median(each).Seconds()}
		if all > 0 {
			f.Share = float64(sums[j]) / float64(all)
		}
		s.Phases = append(s.Phases, f)
	}
	return s
}

// median of ds (0 when there are none): the middle one, or the mean of
// the two middle ones.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// String is the summary in a few lines: per phase its median and share.
func (s Summary) String() string {
	if s.Schedules == 0 {
		return "no schedule's time to summarise"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "where the %d schedule(s)' time went (median per phase; share of all schedules' time); median schedule %s:",
		s.Schedules, roundDuration(seconds(s.MedianSeconds)))
	for _, f := range s.Phases {
		fmt.Fprintf(&b, "\n  %-12s %8s  %5.1f%%", f.Phase, roundDuration(seconds(f.MedianSeconds)), 100*f.Share)
	}
	return b.String()
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
