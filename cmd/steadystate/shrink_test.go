package main

import (
	"errors"
	"strings"
	"testing"
)

// A shrink candidate counts when it breaks exactly the wanted properties
// and, against a seeded bug, the correct mode holds on it; the correct
// mode is replayed only for a candidate that broke.
func TestJudgeCandidate(t *testing.T) {
	const want = "leader/only-holder-writes"
	boom := errors.New("the cluster did not start")
	of := func(t tally, err error) func() (tally, error) { return func() (tally, error) { return t, err } }
	notRun := func() (tally, error) { panic("the correct mode was replayed for a candidate that did not break") }
	for _, tc := range []struct {
		name            string
		bug, correct    func() (tally, error)
		ok              bool
		what, errSubstr string
	}{
		{"breaks, no correct mode", of(tally{broke: 1}, nil), nil, true, "breaks it", ""},
		{"breaks, correct holds", of(tally{broke: 1}, nil), of(tally{held: 1}, nil), true, "the correct mode holds", ""},
		{"breaks, correct breaks too", of(tally{broke: 1}, nil), of(tally{broke: 1}, nil), false, "no evidence of the bug", ""},
		{"breaks, correct breaks others", of(tally{broke: 1}, nil), of(tally{other: 1}, nil), false, "breaks other properties", ""},
		{"breaks, correct errs", of(tally{broke: 1}, nil), of(tally{errs: 1}, nil), false, "an error", ""},
		{"does not break", of(tally{held: 1}, nil), notRun, false, "does not break " + want, ""},
		{"breaks others", of(tally{other: 1}, nil), notRun, false, "not exactly " + want, ""},
		{"replay fails", of(tally{}, boom), notRun, false, "", "did not start"},
		{"correct replay fails", of(tally{broke: 1}, nil), of(tally{}, boom), false, "", "did not start"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, what, err := judgeCandidate(want, tc.bug, tc.correct)
			if tc.errSubstr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errSubstr) {
					t.Fatalf("err = %v, want %q", err, tc.errSubstr)
				}
				return
			}
			if err != nil || ok != tc.ok || !strings.Contains(what, tc.what) {
				t.Errorf("judgeCandidate = %v, %q, %v; want %v and %q", ok, what, err, tc.ok, tc.what)
			}
		})
	}
}
