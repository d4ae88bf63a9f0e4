package schedule

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"
)

// Shrink keeps the two steps whose overlap breaks the property, out of
// eight, zeroes the timings that do not matter and keeps the stall's,
// which does; every replay is counted.
func TestShrinkFindsTheStepsAndTimingsThatBreak(t *testing.T) {
	s := Generate(1, Scalable, DefaultLimits)
	s.Steps = []Step{
		{At: time.Second, Fault: "answer-500", Resource: "pods", For: 3 * time.Second},
		{At: 2 * time.Second, Fault: "watch-stall", Resource: "pods", For: 4 * time.Second},
		{At: 3 * time.Second, Workload: "scale-up"},
		{At: 4 * time.Second, Fault: "etcd-compaction"},
		{At: 5 * time.Second, Fault: "process-kill", Replica: "0"},
		{After: &Trigger{Verb: "create", Resource: "pods"}, Fault: "pod-deletion"},
		{At: 6 * time.Second, Workload: "scale-down"},
		{At: 7 * time.Second, Fault: "watch-cut", Resource: "pods"},
	}
	// It breaks when a stall of at least 700ms and a pod deletion right
	// after a create are both in it.
	brokenBy := func(c Schedule) bool {
		stall, deletion := false, false
		for _, st := range c.Steps {
			stall = stall || (st.Fault == "watch-stall" && st.For >= 700*time.Millisecond)
			deletion = deletion || (st.Fault == "pod-deletion" && st.After != nil)
		}
		return stall && deletion
	}
	calls, replayed := 0, map[string]bool{}
	breaks := func(_ context.Context, c Schedule) (bool, error) {
		calls++
		data, err := Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if replayed[string(data)] {
			t.Errorf("replayed one candidate twice:\n%s", data)
		}
		replayed[string(data)] = true
		return brokenBy(c), nil
	}
	out, err := Shrink(context.Background(), s, breaks)
	if err != nil {
		t.Fatal(err)
	}
	got := out.Schedule.Steps
	if len(got) != 2 || got[0].Fault != "watch-stall" || got[1].Fault != "pod-deletion" {
		t.Fatalf("shrunk to %+v, want the stall and the deletion", got)
	}
	if got[0].For != 4*time.Second || got[0].At != 0 {
		t.Errorf("stall at %s for %s, want at 0 for the 4s it broke with", got[0].At, got[0].For)
	}
	if out.Replays != calls {
		t.Errorf("Shrink counted %d replays, ran %d", out.Replays, calls)
	}
	if p := out.Schedule.Validate(); len(p) > 0 {
		t.Errorf("the shrunk schedule is invalid: %+v", p)
	}
	// The path runs from the finding to the result through candidates
	// that each broke, every one smaller or sooner than the last.
	path := out.Path
	if len(path) < 3 || !reflect.DeepEqual(path[0], s) || !reflect.DeepEqual(path[len(path)-1], out.Schedule) {
		t.Fatalf("path of %d schedules does not run from the finding to the result", len(path))
	}
	for i, c := range path[1:] {
		if !brokenBy(c) {
			t.Errorf("path[%d] does not break", i+1)
		}
		if prev := path[i]; len(c.Steps) > len(prev.Steps) {
			t.Errorf("path[%d] has %d steps, more than the %d before it", i+1, len(c.Steps), len(prev.Steps))
		}
	}
}

// A leader-elected schedule's replica index becomes the role that still
// breaks: a partition of replica 1 that breaks only when it holds the
// Lease shrinks to a partition of the leader; one that breaks whoever is
// cut keeps nothing it does not need, and a role it can take.
func TestShrinkNamesTheRole(t *testing.T) {
	s := Schedule{Format: Format, Capability: Leader, Steps: []Step{{Fault: "partition-blackhole", Replica: "1", For: time.Second}}}
	onlyLeader := func(_ context.Context, c Schedule) (bool, error) {
		return len(c.Steps) > 0 && (c.Steps[0].Replica == "1" || c.Steps[0].Replica == "leader"), nil
	}
	out, err := Shrink(context.Background(), s, onlyLeader)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Schedule.Steps[0].Replica; got != "leader" {
		t.Errorf("shrunk to replica %q, want leader", got)
	}
	// A scalable subject has no roles: its indexes stay.
	s.Capability, s.Steps[0].Fault = Scalable, "process-kill"
	s.Steps[0].For = 0
	out, err = Shrink(context.Background(), s, func(_ context.Context, c Schedule) (bool, error) { return len(c.Steps) > 0, nil })
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Schedule.Steps[0].Replica; got != "1" {
		t.Errorf("a scalable schedule's replica became %q", got)
	}
}

// A bug that needs no fault breaks the empty schedule: the shrink ends
// there, after one replay, and the empty schedule is a valid file.
func TestShrinkEndsOnTheEmptySchedule(t *testing.T) {
	s := Generate(5, Composite, DefaultLimits)
	out, err := Shrink(context.Background(), s, func(context.Context, Schedule) (bool, error) { return true, nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Schedule.Steps) != 0 || out.Replays != 1 {
		t.Errorf("shrunk to %d steps in %d replays, want 0 in 1", len(out.Schedule.Steps), out.Replays)
	}
	data, err := Marshal(out.Schedule)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(data, "shrunk.yaml")
	if err != nil || len(back.Steps) != 0 {
		t.Errorf("the empty schedule does not read back: %v\n%s", err, data)
	}
}

// A replay that cannot run stops the shrink with its error.
func TestShrinkStopsOnAReplayThatCannotRun(t *testing.T) {
	s := Generate(3, Leader, Limits{Steps: 6, Horizon: time.Second, Longest: time.Second, Replicas: 2})
	s.Steps = append(s.Steps, s.Steps...)
	boom := errors.New("the cluster did not start")
	_, err := Shrink(context.Background(), s, func(context.Context, Schedule) (bool, error) { return false, boom })
	if !errors.Is(err, boom) {
		t.Errorf("Shrink = %v, want %v", err, boom)
	}
	// Stopped after three replays (the empty schedule held, the first half
	// broke, then the run was cut off): what it returns is the half that
	// broke.
	calls := 0
	out, err := Shrink(context.Background(), s, func(context.Context, Schedule) (bool, error) {
		if calls++; calls > 2 {
			return false, boom
		}
		return calls == 2, nil
	})
	if !errors.Is(err, boom) || len(out.Schedule.Steps) != len(s.Steps)/2 {
		t.Errorf("Shrink stopped with %d of %d steps (%v), want the half that broke", len(out.Schedule.Steps), len(s.Steps), err)
	}
}

// ddmin's result is 1-minimal: dropping any one more step stops it
// breaking.
func TestDdminIsOneMinimal(t *testing.T) {
	var steps []Step
	for i := range 13 {
		steps = append(steps, Step{At: time.Duration(i) * time.Second, Fault: "etcd-compaction"})
	}
	need := map[time.Duration]bool{2 * time.Second: true, 7 * time.Second: true, 11 * time.Second: true}
	test := func(c []Step) (bool, error) {
		n := 0
		for _, st := range c {
			if need[st.At] {
				n++
			}
		}
		return n == len(need), nil
	}
	got, _ := ddmin(steps, test)
	if len(got) != 3 {
		t.Fatalf("ddmin kept %d steps: %+v", len(got), got)
	}
	for i := range got {
		if ok, _ := test(append(append([]Step{}, got[:i]...), got[i+1:]...)); ok {
			t.Errorf("dropping step %d still breaks: not 1-minimal", i)
		}
	}
}

// A fault's for and delay are never zeroed, even where the schedule
// breaks whatever they are: a fault held or delaying for no time is no
// fault (and no valid step), and whether the fault matters is ddmin's
// question, already answered.
func TestShrinkKeepsAFaultsForAndDelay(t *testing.T) {
	s := Schedule{Format: Format, Capability: Scalable, Steps: []Step{
		{At: time.Second, Fault: "event-delay", Resource: "pods", Event: "ADDED", For: 3 * time.Second, Delay: time.Second},
		{At: 2 * time.Second, Workload: "scale-up"},
	}}
	out, err := Shrink(context.Background(), s, func(_ context.Context, c Schedule) (bool, error) {
		return len(c.Steps) == 2, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := out.Schedule.Steps[0]
	if got.At != 0 || got.Delay != time.Second || got.For != 3*time.Second {
		t.Errorf("shrunk to %+v, want at zeroed, for and delay kept", got)
	}
	if p := out.Schedule.Validate(); len(p) > 0 {
		t.Errorf("the shrunk schedule is invalid: %+v", p)
	}
}
