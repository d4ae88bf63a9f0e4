// Package explore is exploration: seeded random fault schedules
// (chaos/schedule) run against one capability of a subject, each judged
// with the same oracle and property records as the suites, to find bugs no
// scenario was written for.
//
// Each schedule is one spec: a fresh namespace and a fresh start of the
// subject on the suite's cluster (the cluster is started once and reused,
// so a schedule pays seconds, not a control plane's start). The spec
// brings the subject to a steady state (an assumption), runs the
// schedule's steps — on the clock, or right after the subject's next
// request of a kind, seen through its fault proxy — recovers every fault,
// restarts every replica a fault stopped, and judges: first the premise
// that every fault step that ran acted (explore/steps-acted, read from the
// fault timeline: a fault whose injection or recovery failed makes the
// schedule an error, never a finding nor a pass), then convergence within
// the capability's bound once recovered, then its invariants over the
// whole history. A step whose trigger never came, or whose replica was
// not there, is not done: the spec's facts and its status line say so,
// and coverage counts only the steps that acted. A spec that breaks a property keeps its schedule, with
// the property as breaks, next to its history.txt and evidence.json; a
// replay (-steadystate.explore.replay) runs a kept schedule again.
//
// The specs are declared up front (enough for the budget); once the
// budget is spent the rest are skipped as such. `steadystate explore`
// runs this suite and prints its status line per schedule: schedules run,
// schedules per minute, coverage, findings and errors so far.
package explore
