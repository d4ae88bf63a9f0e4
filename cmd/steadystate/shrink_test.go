package main

import (
	"errors"
	"strings"
	"testing"
)

// A shrink candidate counts when it breaks exactly the wanted properties,
// again in every confirming replay, and, against a seeded bug, the correct
// mode holds on it; each later replay runs only after the earlier broke.
func TestJudgeCandidate(t *testing.T) {
	const want = "leader/only-holder-writes"
	boom := errors.New("the cluster did not start")
	of := func(t tally, err error) func() (tally, error) { return func() (tally, error) { return t, err } }
	notRun := func() (tally, error) { panic("replayed again a candidate that did not break") }
	for _, tc := range []struct {
		name                  string
		bug, confirm, correct func() (tally, error)
		ok                    bool
		what, errSubstr       string
	}{
		{"breaks, no confirming, no correct mode", of(tally{broke: 1}, nil), nil, nil, true, "breaks it", ""},
		{"breaks, confirmed", of(tally{broke: 1}, nil), of(tally{broke: 2}, nil), nil, true, "breaks it", ""},
		{"breaks, not every confirming replay", of(tally{broke: 1}, nil), of(tally{broke: 1, held: 1}, nil), notRun, false, "again in only 1 of 2", ""},
		{"breaks, confirming replay errs", of(tally{broke: 1}, nil), of(tally{errs: 1}, nil), notRun, false, "again in only 0 of 1", ""},
		{"breaks, correct holds", of(tally{broke: 1}, nil), of(tally{broke: 1}, nil), of(tally{held: 1}, nil), true, "the correct mode holds", ""},
		{"breaks, correct breaks too", of(tally{broke: 1}, nil), nil, of(tally{broke: 1}, nil), false, "no evidence of the bug", ""},
		{"breaks, correct breaks others", of(tally{broke: 1}, nil), nil, of(tally{other: 1}, nil), false, "breaks other properties", ""},
		{"breaks, correct errs", of(tally{broke: 1}, nil), nil, of(tally{errs: 1}, nil), false, "an error", ""},
		{"does not break", of(tally{held: 1}, nil), notRun, notRun, false, "does not break " + want, ""},
		{"breaks others", of(tally{other: 1}, nil), notRun, notRun, false, "not exactly " + want, ""},
		{"replay fails", of(tally{}, boom), notRun, notRun, false, "", "did not start"},
		{"confirming replay fails", of(tally{broke: 1}, nil), of(tally{}, boom), notRun, false, "", "did not start"},
		{"correct replay fails", of(tally{broke: 1}, nil), nil, of(tally{}, boom), false, "", "did not start"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, what, err := judgeCandidate(want, tc.bug, tc.confirm, tc.correct)
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
