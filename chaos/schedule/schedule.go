package schedule

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Format is the schedule file format this package reads and writes.
const Format = "steadystate.dev/schedule/v1"

// Schedule is one exploration run's faults and workload steps.
type Schedule struct {
	Format string `yaml:"format"`
	// Seed drew the schedule (Generate); 0 for one written by hand.
	Seed uint64 `yaml:"seed,omitempty"`
	// Capability is the subject capability the steps exercise.
	Capability string `yaml:"capability"`
	// Steps may be empty: the baseline, in which only what the capability
	// does at recovery happens (a claim deleted, objects moved), with no
	// fault. A shrink ends there for a bug that needs no fault.
	Steps []Step `yaml:"steps"`
	// Breaks, in a schedule kept as a finding, is the property it broke
	// (what a replay and a shrink must break again).
	Breaks string `yaml:"breaks,omitempty"`
}

// Step is one fault or workload step: exactly one of Fault and Workload,
// placed at At from the schedule's start, or right after the subject's
// next request that After names (then At is a further delay).
type Step struct {
	At       time.Duration `yaml:"at,omitempty"`
	After    *Trigger      `yaml:"after,omitempty"`
	Fault    string        `yaml:"fault,omitempty"`
	Workload string        `yaml:"workload,omitempty"`
	Resource string        `yaml:"resource,omitempty"`
	Event    string        `yaml:"event,omitempty"`
	// Replica is a replica's index, leader or follower; empty: every
	// replica.
	Replica string        `yaml:"replica,omitempty"`
	For     time.Duration `yaml:"for,omitempty"`
	Delay   time.Duration `yaml:"delay,omitempty"`
	// Nth is which of the subject's writes of Resource a refuse-once
	// fault answers, counted from the step's start: 0 or 1 the next, 3
	// the third (the two before pass).
	Nth int `yaml:"nth,omitempty"`
}

// Trigger is a request of the subject a step waits for: the next one made
// once From has passed on the schedule's clock, within Within of then
// (0: the explorer's default, a few seconds). A controller driven by the
// clock (a CronJob's, once a minute) may need longer.
type Trigger struct {
	Verb     string        `yaml:"verb"`
	Resource string        `yaml:"resource"`
	From     time.Duration `yaml:"from,omitempty"`
	Within   time.Duration `yaml:"within,omitempty"`
}

// Name is the step's fault or workload step.
func (s Step) Name() string { return s.Fault + s.Workload }

// String is the step on one line, for progress and reports.
func (s Step) String() string {
	var b strings.Builder
	b.WriteString(s.Name())
	for _, kv := range [][2]string{{"resource", s.Resource}, {"event", s.Event}, {"replica", s.Replica}} {
		if kv[1] != "" {
			fmt.Fprintf(&b, " %s=%s", kv[0], kv[1])
		}
	}
	for _, kv := range []struct {
		k string
		d time.Duration
	}{{"for", s.For}, {"delay", s.Delay}} {
		if kv.d > 0 {
			fmt.Fprintf(&b, " %s=%s", kv.k, kv.d)
		}
	}
	if s.Nth > 0 {
		fmt.Fprintf(&b, " nth=%d", s.Nth)
	}
	if s.After != nil {
		fmt.Fprintf(&b, " after the next %s of %s", s.After.Verb, s.After.Resource)
		if s.After.From > 0 {
			fmt.Fprintf(&b, " from %s", s.After.From)
		}
		if s.After.Within > 0 {
			fmt.Fprintf(&b, " within %s", s.After.Within)
		}
		if s.At > 0 {
			fmt.Fprintf(&b, " +%s", s.At)
		}
	} else {
		fmt.Fprintf(&b, " at %s", s.At)
	}
	return b.String()
}

// Problem is one thing wrong with a schedule: the step's field, what is
// wrong, and the valid values.
type Problem struct {
	Step          int // -1: the schedule itself
	Field, Reason string
	Valid         []string
}

// Validate lists everything wrong with s.
func (s Schedule) Validate() []Problem {
	var out []Problem
	bad := func(step int, field, reason string, valid ...string) {
		out = append(out, Problem{Step: step, Field: field, Reason: reason, Valid: valid})
	}
	if s.Format != Format {
		bad(-1, "format", fmt.Sprintf("%q is not a format this steadystate reads", s.Format), Format)
	}
	if !slices.Contains(Capabilities, s.Capability) {
		bad(-1, "capability", fmt.Sprintf("%q is not a capability", s.Capability), Capabilities...)
		return out
	}
	for i, st := range s.Steps {
		kind, ok := st.kind()
		switch {
		case st.Fault != "" && st.Workload != "":
			bad(i, "fault", "a step is a fault or a workload step, not both")
			continue
		case st.Fault == "" && st.Workload == "":
			bad(i, "fault", "missing: a step needs a fault or a workload step", names(Faults, s.Capability)...)
			continue
		case !ok && st.Fault != "":
			bad(i, "fault", fmt.Sprintf("%q is not a fault", st.Fault), names(Faults, s.Capability)...)
			continue
		case !ok:
			bad(i, "workload", fmt.Sprintf("%q is not a workload step", st.Workload), names(Workloads, s.Capability)...)
			continue
		case !kind.For(s.Capability):
			field, valid := "fault", names(Faults, s.Capability)
			if st.Workload != "" {
				field, valid = "workload", names(Workloads, s.Capability)
			}
			bad(i, field, fmt.Sprintf("%s does not apply to a subject with capability %s", st.Name(), s.Capability), valid...)
			continue
		}
		s.validateParams(i, st, kind, bad)
	}
	return out
}

func (s Schedule) validateParams(i int, st Step, kind Kind, bad func(int, string, string, ...string)) {
	set := map[Param]bool{Resource: st.Resource != "", Event: st.Event != "", Replica: st.Replica != "", For: st.For != 0, Delay: st.Delay != 0, Nth: st.Nth != 0}
	for _, p := range []Param{Resource, Event, Replica, For, Delay, Nth} {
		if set[p] && !kind.Takes(p) {
			var takes []string
			for _, t := range kind.Params {
				takes = append(takes, string(t))
			}
			bad(i, string(p), st.Name()+" takes no "+string(p), takes...)
		}
	}
	if st.Resource != "" && !Uses(s.Capability, st.Resource) {
		bad(i, "resource", fmt.Sprintf("%q is not a resource a %s subject uses", st.Resource, s.Capability), resourcesValid(s.Capability)...)
	}
	if st.Event != "" && !slices.Contains(Events, st.Event) {
		bad(i, "event", fmt.Sprintf("%q is not a watch event type", st.Event), Events...)
	}
	if st.Nth < 0 {
		bad(i, "nth", fmt.Sprintf("%d is not a write's place", st.Nth), "1 (the next write, the default)", "2", "3", "...")
	}
	if st.Replica != "" && st.Replica != "leader" && st.Replica != "follower" {
		if n, err := strconv.Atoi(st.Replica); err != nil || n < 0 {
			bad(i, "replica", fmt.Sprintf("%q is not a replica", st.Replica), "an index from 0", "leader", "follower")
		}
	}
	// chaos.Inject recovers a fault once its Inject returns: a proxy rule
	// with no duration, or events delayed by nothing, would do nothing.
	if kind.Takes(For) && st.For == 0 {
		bad(i, "for", "missing: "+st.Name()+" holds for a while, and one held for no time does nothing", "a duration above 0, such as 2s")
	}
	if kind.Takes(Delay) && st.Delay == 0 {
		bad(i, "delay", "missing: how late "+st.Name()+" delivers the events", "a duration above 0, such as 1s")
	}
	for _, d := range []struct {
		f string
		v time.Duration
	}{{"at", st.At}, {"for", st.For}, {"delay", st.Delay}, {"after.from", st.after().From}, {"after.within", st.after().Within}} {
		if d.v < 0 {
			bad(i, d.f, "negative: "+d.v.String(), "a duration from 0, such as 2s")
		}
	}
	if st.After != nil {
		if !slices.Contains(Verbs, st.After.Verb) {
			bad(i, "after.verb", fmt.Sprintf("%q is not a request verb", st.After.Verb), Verbs...)
		}
		if !Uses(s.Capability, st.After.Resource) {
			bad(i, "after.resource", fmt.Sprintf("%q is not a resource a %s subject uses", st.After.Resource, s.Capability), resourcesValid(s.Capability)...)
		}
	}
}

// after is the step's trigger, or none.
func (s Step) after() Trigger {
	if s.After == nil {
		return Trigger{}
	}
	return *s.After
}

func (s Step) kind() (Kind, bool) {
	if s.Fault != "" {
		k, ok := Faults[s.Fault]
		return k, ok
	}
	k, ok := Workloads[s.Workload]
	return k, ok
}
