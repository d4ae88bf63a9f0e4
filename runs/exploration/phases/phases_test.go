package phases

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
)

// mark is an Entry for phase at t; asJSON reads it back as a report
// read from its JSON does (no raw value).
func mark(phase int, t time.Time, asJSON bool) types.ReportEntry {
	e := types.ReportEntry{Name: Entry, Time: t, Value: types.WrapEntryValue(Names[phase])}
	if asJSON {
		data, err := json.Marshal(e)
		if err != nil {
			panic(err)
		}
		e = types.ReportEntry{}
		if err := json.Unmarshal(data, &e); err != nil {
			panic(err)
		}
	}
	return e
}

// A spec's phases run from its start, each from its mark to the next, the
// last to the spec's end; other entries are no marks, and a phase entered
// twice counts both stretches.
func TestPhasesOfASpec(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	for _, asJSON := range []bool{false, true} {
		r := types.SpecReport{StartTime: t0, EndTime: at(30), ReportEntries: types.ReportEntries{
			{Name: "schedule", Time: at(3), Value: types.WrapEntryValue("not a phase")},
			mark(Steps, at(4), asJSON),
			mark(Convergence, at(10), asJSON),
			mark(Judging, at(11), asJSON),
			mark(Convergence, at(12), asJSON),
			mark(Judging, at(25), asJSON),
			mark(TearDown, at(26), asJSON),
		}}
		got := Of(r)
		want := Times{4 * time.Second, 6 * time.Second, 14 * time.Second, 2 * time.Second, 4 * time.Second}
		if got != want {
			t.Errorf("JSON %v: phases %v, want %v", asJSON, got, want)
		}
		if got.Total() != r.EndTime.Sub(r.StartTime) {
			t.Errorf("JSON %v: phases total %s, the spec took %s", asJSON, got.Total(), r.EndTime.Sub(r.StartTime))
		}
		if Last(r.ReportEntries) != TearDown {
			t.Errorf("JSON %v: last phase %d, want tear-down", asJSON, Last(r.ReportEntries))
		}
	}
	// A spec that failed in its set-up has its time there until its
	// tear-down.
	failed := types.SpecReport{StartTime: t0, EndTime: at(9), ReportEntries: types.ReportEntries{mark(TearDown, at(7), false)}}
	if got, want := Of(failed), (Times{SetUp: 7 * time.Second, TearDown: 2 * time.Second}); got != want {
		t.Errorf("failed set-up: phases %v, want %v", got, want)
	}
}

// The summary: the median per phase (the middle one, or the mean of the
// two middle ones), each phase's share of all the schedules' time, and
// the median schedule's total.
func TestSummarise(t *testing.T) {
	s := time.Second
	schedules := []Times{
		{4 * s, 2 * s, 10 * s, 1 * s, 3 * s}, // 20s
		{6 * s, 4 * s, 20 * s, 1 * s, 9 * s}, // 40s
		{2 * s, 6 * s, 30 * s, 1 * s, 1 * s}, // 40s
		{8 * s, 8 * s, 40 * s, 1 * s, 3 * s}, // 60s
	}
	got := Summarise(schedules)
	if got.Schedules != 4 || got.MedianSeconds != 40 {
		t.Errorf("schedules %d, median %gs, want 4 and 40s", got.Schedules, got.MedianSeconds)
	}
	// Of 160s in all: set-up 20s, steps 20s, convergence 100s, judging
	// 4s, tear-down 16s.
	want := []Figure{{"set-up", 5, 0.125}, {"steps", 5, 0.125}, {"convergence", 25, 0.625}, {"judging", 1, 0.025}, {"tear-down", 3, 0.1}}
	var shares float64
	for i, f := range got.Phases {
		if f.Phase != want[i].Phase || f.MedianSeconds != want[i].MedianSeconds || math.Abs(f.Share-want[i].Share) > 1e-9 {
			t.Errorf("phase %d: %+v, want %+v", i, f, want[i])
		}
		shares += f.Share
	}
	if math.Abs(shares-1) > 1e-9 {
		t.Errorf("shares add up to %g, want 1", shares)
	}
	odd := Summarise(schedules[:3])
	if odd.MedianSeconds != 40 || odd.Phases[Convergence].MedianSeconds != 20 || odd.Phases[TearDown].MedianSeconds != 3 {
		t.Errorf("three schedules: %+v, want a median of 40s, convergence 20s, tear-down 3s", odd)
	}
	none := Summarise(nil)
	if none.Schedules != 0 || none.MedianSeconds != 0 || none.Phases[SetUp].Share != 0 {
		t.Errorf("no schedules: %+v, want zeros", none)
	}
}
