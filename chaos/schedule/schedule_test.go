package schedule

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The same seed draws the same schedule; different seeds draw different
// ones; every drawn schedule is valid for its capability and survives a
// round trip through its file.
func TestGenerateIsReplayedBySeedAndValid(t *testing.T) {
	for _, c := range Capabilities {
		distinct := map[string]bool{}
		for seed := uint64(1); seed <= 200; seed++ {
			s := Generate(seed, c, DefaultLimits)
			if !reflect.DeepEqual(s, Generate(seed, c, DefaultLimits)) {
				t.Fatalf("%s seed %d drew two schedules", c, seed)
			}
			if p := s.Validate(); len(p) > 0 {
				t.Fatalf("%s seed %d drew an invalid schedule: %+v\n%+v", c, seed, p, s)
			}
			data, err := Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			back, err := Parse(data, "s.yaml")
			if err != nil || !reflect.DeepEqual(back, s) {
				t.Fatalf("%s seed %d: round trip = %+v, %v; want %+v\n%s", c, seed, back, err, s, data)
			}
			distinct[string(data)] = true
		}
		if len(distinct) < 190 {
			t.Errorf("%s: 200 seeds drew only %d distinct schedules", c, len(distinct))
		}
	}
}

// Every fault and workload step is drawn for the capabilities it applies
// to, and only those; the aimed faults only by their pattern.
func TestGenerateCoversTheVocabulary(t *testing.T) {
	aimed := DefaultLimits
	aimed.Pattern = RefusedOnce
	for _, c := range Capabilities {
		seen := map[string]bool{}
		for seed := uint64(1); seed <= 500; seed++ {
			for _, st := range Generate(seed, c, DefaultLimits).Steps {
				seen[st.Name()] = true
				if slices.Contains(Aimed, st.Fault) {
					t.Fatalf("%s seed %d drew %s, which only its pattern draws", c, seed, st.Fault)
				}
			}
			for _, st := range Generate(seed, c, aimed).Steps {
				seen[st.Name()] = true
			}
		}
		for _, n := range append(names(Faults, c), names(Workloads, c)...) {
			if !seen[n] {
				t.Errorf("%s: 500 seeds never drew %s", c, n)
			}
		}
		for n := range seen {
			if k, _ := (Step{Fault: n}).kind(); !k.For(c) {
				if k, _ := (Step{Workload: n}).kind(); !k.For(c) {
					t.Errorf("%s: drew %s, which does not apply", c, n)
				}
			}
		}
	}
}

const good = `format: steadystate.dev/schedule/v1
seed: 7
capability: scalableWorkload
steps:
  - at: 1s
    fault: watch-stall
    resource: pods
    for: 2s
  - after: {verb: create, resource: pods}
    fault: pod-deletion
  - at: 3s
    workload: scale-up
`

// A bad schedule file is refused with its name, the line and the valid
// values; every problem is named at once.
func TestBadFilesNameTheLineAndTheValidValues(t *testing.T) {
	if _, err := Parse([]byte(good), "s.yaml"); err != nil {
		t.Fatalf("the good file: %v", err)
	}
	for _, tc := range []struct{ name, from, to, want string }{
		{"unknown field", "    for: 2s", "    for: 2s\n    colour: red", "s.yaml:9: field colour not found"},
		{"bad duration", "for: 2s", "for: soon", "s.yaml:8: cannot unmarshal !!str `soon` into time.Duration"},
		{"unknown fault", "fault: watch-stall", "fault: watch-stal", `s.yaml:5: steps[0].fault: "watch-stal" is not a fault; valid: answer-409,`},
		{"fault of another capability", "fault: pod-deletion", "fault: leader-failover", "s.yaml:9: steps[1].fault: leader-failover does not apply to a subject with capability scalableWorkload; valid: answer-409"},
		{"workload of another capability", "workload: scale-up", "workload: move", "s.yaml:11: steps[2].workload: move does not apply to a subject with capability scalableWorkload; valid: scale-down, scale-up"},
		{"parameter it takes not", "    resource: pods\n    for: 2s", "    resource: pods\n    delay: 2s\n    for: 2s", "s.yaml:5: steps[0].delay: watch-stall takes no delay; valid: resource, replica, for"},
		{"nth of a fault that counts none", "    resource: pods\n    for: 2s", "    resource: pods\n    nth: 2\n    for: 2s", "s.yaml:5: steps[0].nth: watch-stall takes no nth; valid: resource, replica, for"},
		{"a write's place below 1", "fault: watch-stall", "fault: refuse-once-409\n    nth: -1", "steps[0].nth: -1 is not a write's place; valid: 1 (the next write, the default), 2, 3, ..."},
		{"a fault held for no time", "    for: 2s\n", "", "s.yaml:5: steps[0].for: missing: watch-stall holds for a while, and one held for no time does nothing; valid: a duration above 0, such as 2s"},
		{"events delayed by nothing", "fault: watch-stall", "fault: event-delay", "s.yaml:5: steps[0].delay: missing: how late event-delay delivers the events; valid: a duration above 0, such as 1s"},
		{"resource", "resource: pods\n", "resource: leases\n", `steps[0].resource: "leases" is not a resource a scalableWorkload subject uses; valid: pods, workload`},
		{"trigger", "verb: create", "verb: watch", `steps[1].after.verb: "watch" is not a request verb; valid: create, update, patch, delete`},
		{"negative within", "resource: pods}", "resource: pods, within: -1s}", "steps[1].after.within: negative: -1s; valid: a duration from 0, such as 2s"},
		{"capability", "capability: scalableWorkload", "capability: scalable", `s.yaml: capability: "scalable" is not a capability; valid: scalableWorkload, leaderElected, foregroundComposite, movableResource`},
		{"format", "format: steadystate.dev/schedule/v1", "format: steadystate.dev/schedule/v9", `s.yaml: format: "steadystate.dev/schedule/v9" is not a format this steadystate reads; valid: steadystate.dev/schedule/v1`},
		{"not yaml", "steps:", "steps: [", "s.yaml: line"},
		{"empty", good, "", "s.yaml: empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := strings.Replace(good, tc.from, tc.to, 1)
			_, err := Parse([]byte(file), "s.yaml")
			var e *Error
			if !errors.As(err, &e) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v does not say %q", err, tc.want)
			}
		})
	}
	_, err := Parse([]byte(strings.Replace(strings.Replace(good, "watch-stall", "nope", 1), "scale-up", "nope", 1)), "s.yaml")
	if err == nil || !strings.Contains(err.Error(), "2 problems") {
		t.Errorf("two problems: %v", err)
	}
	if _, err := Load("/nonexistent/s.yaml"); err == nil || !strings.Contains(err.Error(), "/nonexistent/s.yaml") {
		t.Errorf("a missing file: %v", err)
	}
}

// A reconciledObjects schedule may name a resource no role names (an operator's
// Secrets) in a fault and a trigger; a name that is no resource is
// refused, and other capabilities keep to their roles.
func TestReconciledObjectsNamesAnyResource(t *testing.T) {
	const steady = `format: steadystate.dev/schedule/v1
capability: reconciledObjects
steps:
  - after: {verb: create, resource: certificaterequests}
    fault: watch-stall
    resource: secrets
    for: 5s
`
	if _, err := Parse([]byte(steady), "s.yaml"); err != nil {
		t.Fatalf("secrets and certificaterequests: %v", err)
	}
	for _, tc := range []struct{ from, to, want string }{
		{"resource: secrets", "resource: Secrets", `steps[0].resource: "Secrets" is not a resource a reconciledObjects subject uses; valid: objects, owned, a resource by its name (secrets)`},
		{"resource: certificaterequests}", "resource: cert-manager.io/certificaterequests}", `steps[0].after.resource: "cert-manager.io/certificaterequests" is not a resource`},
	} {
		if _, err := Parse([]byte(strings.Replace(steady, tc.from, tc.to, 1)), "s.yaml"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v does not say %q", tc.to, err, tc.want)
		}
	}
	if !Uses(Steady, "network-attachment-definitions") || Uses(Steady, "secrets-") {
		t.Error("a custom resource's plural is a DNS label")
	}
	if Uses(Scalable, "secrets") {
		t.Error("a scalable subject's schedule named secrets")
	}
}

// A schedule kept before the reconcile suite and its capability were
// renamed names them steadystate and steadyState: it reads under the
// current names, so a replay breaks, and a shrink keeps, what it names.
func TestFormerNamesInASchedule(t *testing.T) {
	const kept = `format: steadystate.dev/schedule/v1
capability: steadyState
breaks: steadystate/same-end-state,steadystate/no-churn
steps:
  - fault: process-restart
`
	s, err := Parse([]byte(kept), "kept.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Capability != Steady || s.Breaks != "reconcile/same-end-state,reconcile/no-churn" {
		t.Errorf("read as capability %q, breaks %q", s.Capability, s.Breaks)
	}
}
