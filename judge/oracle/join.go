package oracle

import (
	"cmp"
	"maps"
	"slices"
	"time"
)

// Changes is the history's one change channel (Changed): a History is a
// Source.
func (h *History) Changes() []<-chan struct{} { return []<-chan struct{}{h.Changed()} }

// JoinedKey is the key an object of the named history has in a joined
// source's state.
func JoinedKey(history, key string) string { return history + ":" + key }

// Join is a view of several histories as one Source, for a state that
// spans resources (a workload and its pods): main's objects under their
// own keys, each other history's under JoinedKey(its name, key). Replayed,
// it goes through the events of all of them in the order they were
// recorded (their arrival times; ties in main's, then the others' name
// order). It reads the histories as they are at each call, live ones
// included.
func Join(main *History, others map[string]*History) Source {
	j := joined{{"", main}}
	for _, name := range slices.Sorted(maps.Keys(others)) {
		j = append(j, part{name, others[name]})
	}
	return j
}

type part struct {
	name string // "" for main: keys as they are
	h    *History
}

func (p part) key(k string) string {
	if p.name == "" {
		return k
	}
	return JoinedKey(p.name, k)
}

type joined []part

func (j joined) StateAt(t time.Time) State {
	s := State{}
	for _, p := range j {
		for k, obj := range p.h.StateAt(t) {
			s[p.key(k)] = obj
		}
	}
	return s
}

func (j joined) ReplayAfter(since time.Time, f func(at time.Time, s State)) {
	s := State{}
	type step struct {
		e    Event
		part int
	}
	var steps []step
	for i, p := range j {
		base, after := p.h.after(since)
		for k, obj := range base {
			s[p.key(k)] = obj
		}
		for _, e := range after {
			e.Key = p.key(e.Key)
			steps = append(steps, step{e, i})
		}
	}
	// Each history's events are in order; a stable sort by time keeps
	// them so, and ties in the parts' order.
	slices.SortStableFunc(steps, func(a, b step) int {
		if c := a.e.At.Compare(b.e.At); c != 0 {
			return c
		}
		return cmp.Compare(a.part, b.part)
	})
	for _, st := range steps {
		apply(s, st.e)
		f(st.e.At, s)
	}
}

func (j joined) Changes() []<-chan struct{} {
	var out []<-chan struct{}
	for _, p := range j {
		out = append(out, p.h.Changed())
	}
	return out
}

// after is the state at since and the events after it, in order; like
// ReplayAfter, it reads a spool back only when since is older than the
// newest spooled event.
func (h *History) after(since time.Time) (State, []Event) {
	sn := h.snapshot()
	var events []Event
	s := State{}
	if sn.spool != nil && !since.Before(sn.baseAt) {
		s = sn.base
		for _, e := range sn.recent {
			if e.At.After(since) {
				events = append(events, e)
			} else {
				apply(s, e)
			}
		}
		return s, events
	}
	h.each(sn, func(e Event) bool {
		if e.At.After(since) {
			events = append(events, e)
		} else {
			apply(s, e)
		}
		return true
	})
	return s, events
}
