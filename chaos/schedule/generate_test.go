package schedule

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"github.com/steadystate-dev/steadystate/internal/renamed"
	"reflect"
	"slices"
	"testing"
	"time"
)

// A fault the run cannot inject, or a workload step it cannot do, is
// never drawn; the rest still are.
func TestGenerateLeavesOutWithout(t *testing.T) {
	l := DefaultLimits
	l.Without = []string{"etcd-compaction", "watch-stall", "create-claim"}
	drawn := map[string]bool{}
	for seed := uint64(1); seed <= 300; seed++ {
		for _, capability := range []string{Scalable, Composite} {
			for _, st := range Generate(seed, capability, l).Steps {
				if slices.Contains(l.Without, st.Name()) {
					t.Fatalf("seed %d drew %s, which Without leaves out", seed, st.Name())
				}
				drawn[st.Name()] = true
			}
		}
	}
	if !drawn["delete-claim"] || !drawn["watch-cut"] {
		t.Errorf("drew %v: delete-claim and watch-cut are not left out", drawn)
	}
}

// However small the limits, a drawn schedule is valid: its held faults
// hold, and its delayed events are delayed, for some time.
func TestGenerateWithTinyLimitsIsValid(t *testing.T) {
	for _, c := range Capabilities {
		for seed := uint64(1); seed <= 200; seed++ {
			s := Generate(seed, c, Limits{Steps: 8, Horizon: time.Millisecond, Longest: time.Millisecond, Replicas: 2})
			if p := s.Validate(); len(p) > 0 {
				t.Fatalf("%s seed %d drew an invalid schedule: %+v\n%+v", c, seed, p, s)
			}
		}
	}
}

// A reconciledObjects subject's controller watches and writes resources no
// role names (cert-manager's Secrets): given what it was seen to use,
// drawn schedules name those resources, literally, watch faults only
// those it watched, triggers only requests it made; every schedule is
// valid, and the draw depends on what was used, not on its order.
func TestGenerateDrawsWhatTheSubjectUsed(t *testing.T) {
	l := DefaultLimits
	l.Watched = []string{"secrets", "certificates", "certificaterequests"}
	l.Requested = []Trigger{{Verb: "create", Resource: "certificaterequests"}, {Verb: "update", Resource: "certificates"}, {Verb: "patch", Resource: "secrets"}}
	shuffled := l
	shuffled.Watched = []string{"certificaterequests", "secrets", "certificates", "secrets"}
	shuffled.Requested = []Trigger{{Verb: "patch", Resource: "secrets"}, {Verb: "create", Resource: "certificaterequests", From: time.Second}, {Verb: "update", Resource: "certificates"}}
	watched := append(slices.Clone(Resources[Steady]), l.Watched...)
	triggers := append(slices.Clone(Requests[Steady]), l.Requested...)
	named, after := map[string]int{}, map[Trigger]int{}
	for seed := uint64(1); seed <= 500; seed++ {
		s := Generate(seed, Steady, l)
		if p := s.Validate(); len(p) > 0 {
			t.Fatalf("seed %d drew an invalid schedule: %+v\n%+v", seed, p, s)
		}
		if !reflect.DeepEqual(s, Generate(seed, Steady, shuffled)) {
			t.Fatalf("seed %d drew another schedule from the same resources in another order", seed)
		}
		for _, st := range s.Steps {
			if st.Resource != "" {
				named[st.Resource]++
				if slices.Contains(watchFaults, st.Fault) && !slices.Contains(watched, st.Resource) {
					t.Errorf("seed %d: %s on %s, which the subject did not watch", seed, st.Fault, st.Resource)
				}
			}
			if st.After != nil {
				tr := Trigger{Verb: st.After.Verb, Resource: st.After.Resource}
				after[tr]++
				if !slices.Contains(triggers, tr) {
					t.Errorf("seed %d: a step after the next %s of %s, a request the subject did not make", seed, tr.Verb, tr.Resource)
				}
			}
		}
	}
	for _, res := range append(slices.Clone(Resources[Steady]), "secrets", "certificates", "certificaterequests") {
		if named[res] == 0 {
			t.Errorf("500 seeds never named %s: named %v", res, named)
		}
	}
	if got, want := Drawn(Steady, "watch-stall", shuffled), []string{"objects", "owned", "certificaterequests", "certificates", "secrets"}; !slices.Equal(got, want) {
		t.Errorf("a watch stall draws among %v, want %v", got, want)
	}
	if got := Drawn(Steady, "process-kill", l); got != nil {
		t.Errorf("a process kill takes no resource, draws among %v", got)
	}
	for _, tr := range l.Requested {
		if after[tr] == 0 {
			t.Errorf("500 seeds never placed a step after the next %s of %s: %v", tr.Verb, tr.Resource, after)
		}
	}
}

// A reconciledObjects controller that was seen not to make some of the role
// requests (it never updates nor deletes what it owns): no step waits
// for them; the others, and what it made beyond the roles, are still
// drawn. One that made none of them, and nothing beyond: every step is
// on the clock, and every schedule is valid.
func TestGenerateLeavesOutUnmadeRequests(t *testing.T) {
	l := DefaultLimits
	l.Unmade = []Trigger{{Verb: "update", Resource: "owned"}, {Verb: "delete", Resource: "owned"}}
	l.Requested = []Trigger{{Verb: "create", Resource: "services"}}
	after := map[Trigger]int{}
	for seed := uint64(1); seed <= 500; seed++ {
		for _, st := range Generate(seed, Steady, l).Steps {
			if st.After != nil {
				after[Trigger{Verb: st.After.Verb, Resource: st.After.Resource}]++
			}
		}
	}
	for _, tr := range l.Unmade {
		if after[tr] > 0 {
			t.Errorf("%d steps wait for the next %s of %s, which the subject does not make", after[tr], tr.Verb, tr.Resource)
		}
	}
	for _, tr := range []Trigger{{Verb: "create", Resource: "owned"}, {Verb: "update", Resource: "objects"}, {Verb: "create", Resource: "services"}} {
		if after[tr] == 0 {
			t.Errorf("500 seeds never placed a step after the next %s of %s: %v", tr.Verb, tr.Resource, after)
		}
	}
	none := DefaultLimits
	none.Unmade = slices.Clone(Requests[Steady])
	for seed := uint64(1); seed <= 500; seed++ {
		s := Generate(seed, Steady, none)
		if p := s.Validate(); len(p) > 0 {
			t.Fatalf("seed %d drew an invalid schedule: %+v\n%+v", seed, p, s)
		}
		for _, st := range s.Steps {
			if st.After != nil {
				t.Fatalf("seed %d: a step after the next %s of %s, and the subject makes no request", seed, st.After.Verb, st.After.Resource)
			}
		}
	}
}

// With nothing used beyond the roles, or for a capability whose roles
// name every resource it uses, the draw is the roles' alone, byte for
// byte what it was before resources beyond them could be drawn.
func TestGenerateWithNothingUsedIsUnchanged(t *testing.T) {
	const before = "009f6d3a0c20de0a540659b407608c8201630a18a74984d72b734060daff852d"
	digest := func(l Limits, except string) string {
		h := sha256.New()
		for _, c := range Capabilities {
			for seed := uint64(1); seed <= 1000; seed++ {
				cl := l
				if c == except {
					cl = DefaultLimits
				}
				data, err := Marshal(Generate(seed, c, cl))
				if err != nil {
					t.Fatal(err)
				}
				// The digest before was taken when the capability had
				// its former name: the draw itself did not change.
				data = bytes.ReplaceAll(data, []byte("capability: "+renamed.ReconcileCapability), []byte("capability: "+renamed.FormerCapability))
				h.Write(data)
			}
		}
		return hex.EncodeToString(h.Sum(nil))
	}
	if got := digest(DefaultLimits, ""); got != before {
		t.Errorf("1000 seeds of every capability drew schedules of digest %s, want %s as before", got, before)
	}
	used := DefaultLimits
	used.Watched = []string{"secrets"}
	used.Requested = []Trigger{{Verb: "create", Resource: "secrets"}}
	if got := digest(used, Steady); got != before {
		t.Errorf("resources used beyond the roles changed the draw of a capability other than reconciledObjects: digest %s, want %s", got, before)
	}
}

// The refused-once pattern draws, after the workload's change when the
// capability has one, one or two writes refused once each, on a resource
// the subject writes, armed with the change or by a request of the same
// resource made from the change on; nothing else. Its schedules are
// valid and replayed by their seed, and both ways of arming are drawn.
func TestRefusedOnceRefusesWritesAfterTheChange(t *testing.T) {
	l := DefaultLimits
	l.Pattern = RefusedOnce
	l.Requested = []Trigger{{Verb: "create", Resource: "secrets"}}
	armed := map[string]bool{}
	for _, c := range Capabilities {
		for seed := uint64(1); seed <= 300; seed++ {
			s := Generate(seed, c, l)
			if p := s.Validate(); len(p) > 0 {
				t.Fatalf("%s seed %d: invalid: %+v", c, seed, p)
			}
			if !reflect.DeepEqual(s, Generate(seed, c, l)) {
				t.Fatalf("%s seed %d drew two schedules", c, seed)
			}
			var change time.Duration
			refusals := 0
			for _, st := range s.Steps {
				switch {
				case st.Workload != "":
					change = st.At
				case slices.Contains(Aimed, st.Fault):
					refusals++
				default:
					t.Fatalf("%s seed %d drew %s, not a write refused once", c, seed, st.Name())
				}
			}
			if refusals < 1 || refusals > 2 {
				t.Fatalf("%s seed %d drew %d refusals, want 1 or 2", c, seed, refusals)
			}
			_, _, requests := drawable(c, l)
			for _, st := range s.Steps {
				if st.Fault == "" {
					continue
				}
				if !slices.ContainsFunc(requests, func(tr Trigger) bool { return tr.Resource == st.Resource }) {
					t.Errorf("%s seed %d refuses writes of %s, which the subject does not write (%v)", c, seed, st.Resource, requests)
				}
				switch {
				case st.After == nil && st.At < change, st.After != nil && st.After.From < change:
					t.Errorf("%s seed %d: refusal %s armed before the change at %s", c, seed, st, change)
				case st.After != nil && st.After.Resource != st.Resource:
					t.Errorf("%s seed %d: refusal %s armed by a request of another resource", c, seed, st)
				case st.After == nil:
					armed["with the change"] = true
				default:
					armed["by a request"] = true
				}
			}
		}
	}
	if len(armed) != 2 {
		t.Errorf("refusals armed only %v", armed)
	}
}

// A pattern's schedules draw their faults among PatternFaults alone (what
// an exploration's coverage counts for it), and the mix and "any" draw
// every fault but the aimed ones.
func TestPatternsDrawAmongTheirFaults(t *testing.T) {
	for _, pattern := range append([]string{""}, Patterns...) {
		only := PatternFaults(pattern)
		drawn := map[string]bool{}
		for seed := uint64(1); seed <= 300; seed++ {
			for _, capability := range Capabilities {
				l := DefaultLimits
				l.Pattern = pattern
				for _, st := range Generate(seed, capability, l).Steps {
					if st.Fault == "" {
						continue
					}
					drawn[st.Fault] = true
					if only != nil && !slices.Contains(only, st.Fault) {
						t.Fatalf("pattern %q, seed %d, %s: drew %s, not among %v", pattern, seed, capability, st.Fault, only)
					}
					if only == nil && slices.Contains(Aimed, st.Fault) {
						t.Fatalf("pattern %q, seed %d, %s: drew the aimed %s", pattern, seed, capability, st.Fault)
					}
				}
			}
		}
		if len(drawn) < 2 {
			t.Errorf("pattern %q drew %v", pattern, drawn)
		}
	}
}

// With the reference run's chains of writes, the refused-once pattern
// aims about half its refusals at the nth write of a chain, counted from
// the application on every replica, held for the chain's span and more;
// half of those at the chain's last write. Without them, none is counted.
func TestRefusedOnceAimsAtAChainsLastWrite(t *testing.T) {
	l := DefaultLimits
	l.Pattern = RefusedOnce
	l.Chains = []Chain{{Resource: "owned", Writes: 4, Last: 5080 * time.Millisecond}, {Resource: "objects", Writes: 1, Last: time.Second}, {Resource: "secrets", Writes: 2, Last: 3 * time.Second}}
	refusals, counted, last := 0, 0, 0
	for seed := uint64(1); seed <= 400; seed++ {
		s := Generate(seed, Steady, l)
		if p := s.Validate(); len(p) > 0 {
			t.Fatalf("seed %d: invalid: %+v", seed, p)
		}
		for _, st := range s.Steps {
			if st.Fault == "" {
				continue
			}
			refusals++
			// What coverage counts as possible holds what is drawn.
			if !slices.Contains(Drawn(Steady, st.Fault, l), st.Resource) {
				t.Fatalf("seed %d drew %s, whose resource is not among %v", seed, st, Drawn(Steady, st.Fault, l))
			}
			if st.Nth == 0 {
				continue
			}
			counted++
			i := slices.IndexFunc(l.Chains, func(c Chain) bool { return c.Resource == st.Resource })
			if i < 0 || st.Nth > l.Chains[i].Writes || st.At != 0 || st.After != nil || st.Replica != "" || st.For < l.Chains[i].Last {
				t.Fatalf("seed %d: %s is not a counted refusal of a chain of %v", seed, st, l.Chains)
			}
			if st.Nth == l.Chains[i].Writes {
				last++
			}
		}
	}
	if counted < refusals/3 || counted > 2*refusals/3 || last < counted/2 {
		t.Errorf("of %d refusals, %d counted and %d of those a chain's last: want about half counted, most of those the last", refusals, counted, last)
	}
	l.Chains = nil
	for seed := uint64(1); seed <= 100; seed++ {
		for _, st := range Generate(seed, Steady, l).Steps {
			if st.Nth != 0 {
				t.Fatalf("seed %d drew %s with no chain to count", seed, st)
			}
		}
	}
}
