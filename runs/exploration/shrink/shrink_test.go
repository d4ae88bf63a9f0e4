package shrink

import (
	"errors"
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// A shrink candidate counts when it breaks exactly the wanted properties,
// again in every confirming replay, and, against a seeded bug, the correct
// mode holds on it; each later replay runs only after the earlier broke.
func TestJudgeCandidate(t *testing.T) {
	const want = "leader/only-holder-writes"
	boom := errors.New("the cluster did not start")
	of := func(t Tally, err error) func() (Tally, error) { return func() (Tally, error) { return t, err } }
	notRun := func() (Tally, error) { panic("replayed again a candidate that did not break") }
	for _, tc := range []struct {
		name                  string
		bug, confirm, correct func() (Tally, error)
		ok                    bool
		what, errSubstr       string
	}{
		{"breaks, no confirming, no correct mode", of(Tally{Broke: 1}, nil), nil, nil, true, "breaks it", ""},
		{"breaks, confirmed", of(Tally{Broke: 1}, nil), of(Tally{Broke: 2}, nil), nil, true, "breaks it", ""},
		{"breaks, not every confirming replay", of(Tally{Broke: 1}, nil), of(Tally{Broke: 1, Held: 1}, nil), notRun, false, "again in only 1 of 2", ""},
		{"breaks, confirming replay errs", of(Tally{Broke: 1}, nil), of(Tally{Errs: 1}, nil), notRun, false, "again in only 0 of 1", ""},
		{"breaks, correct holds", of(Tally{Broke: 1}, nil), of(Tally{Broke: 1}, nil), of(Tally{Held: 1}, nil), true, "the correct mode holds", ""},
		{"breaks, correct breaks too", of(Tally{Broke: 1}, nil), nil, of(Tally{Broke: 1}, nil), false, "no evidence of the bug", ""},
		{"breaks, correct breaks others", of(Tally{Broke: 1}, nil), nil, of(Tally{Other: 1}, nil), false, "breaks other properties", ""},
		{"breaks, correct errs", of(Tally{Broke: 1}, nil), nil, of(Tally{Errs: 1}, nil), false, "an error", ""},
		{"breaks, correct holds but its reference run errs", of(Tally{Broke: 1}, nil), nil, of(Tally{Held: 1, Errs: 1}, nil), false, "an error", ""},
		{"breaks, correct holds but its reference run breaks it", of(Tally{Broke: 1}, nil), nil, of(Tally{Held: 1, Ref: 1}, nil), false, "in a fault-free reference run", ""},
		{"does not break", of(Tally{Held: 1}, nil), notRun, notRun, false, "does not break " + want, ""},
		{"breaks others", of(Tally{Other: 1}, nil), notRun, notRun, false, "not exactly " + want, ""},
		{"replay fails", of(Tally{}, boom), notRun, notRun, false, "", "did not start"},
		{"confirming replay fails", of(Tally{Broke: 1}, nil), of(Tally{}, boom), notRun, false, "", "did not start"},
		{"correct replay fails", of(Tally{Broke: 1}, nil), nil, of(Tally{}, boom), false, "", "did not start"},
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

// The walk back keeps the smallest schedule of the shrink's path that
// broke the properties in every replay; when none did, the one that broke
// most often (the smaller on a tie). It replays nothing past the one it
// keeps, and a replay that cannot run stops it.
func TestSteadiest(t *testing.T) {
	boom := errors.New("the cluster did not start")
	for _, tc := range []struct {
		name    string
		broke   []int // by index of the path: how often each breaks in 10
		fail    int   // index whose replay cannot run; -1 none
		kept    int
		tallied []int // indexes replayed
	}{
		{"the smallest is steady", []int{10, 10, 10}, -1, 2, []int{2}},
		{"the smallest missed twice", []int{10, 10, 8}, -1, 1, []int{2, 1}},
		{"only the finding is steady", []int{10, 7, 8}, -1, 0, []int{2, 1, 0}},
		{"none is steady", []int{6, 9, 9, 7}, -1, 2, []int{3, 2, 1, 0}},
		{"a replay cannot run", []int{10, 10, 8}, 1, 2, []int{2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := steadiest(len(tc.broke), 10, func(i int) (Tally, error) {
				if i == tc.fail {
					return Tally{}, boom
				}
				return Tally{Broke: tc.broke[i], Held: 10 - tc.broke[i]}, nil
			})
			if (tc.fail >= 0) != errors.Is(err, boom) {
				t.Fatalf("err = %v", err)
			}
			if w.kept != tc.kept {
				t.Errorf("kept path[%d], want path[%d]", w.kept, tc.kept)
			}
			if len(w.tallies) != len(tc.tallied) {
				t.Errorf("replayed %v, want %v", w.tallies, tc.tallied)
			}
			for _, i := range tc.tallied {
				if _, ok := w.tallies[i]; !ok {
					t.Errorf("path[%d] not replayed; replayed %v", i, w.tallies)
				}
			}
		})
	}
}

// A reconciledObjects replay makes its two fault-free reference runs before the
// schedule: Count leaves them out, so a candidate that broke in each
// confirming replay is confirmed.
func TestCountLeavesOutTheReferenceRuns(t *testing.T) {
	const want = "reconcile/same-end-state,reconcile/no-churn"
	specs := []verdict.Spec{
		{Name: "Exploration of a reconciledObjects subject fault-free reference run 1 of 2", Outcome: verdict.Passed},
		{Name: "Exploration of a reconciledObjects subject fault-free reference run 2 of 2", Outcome: verdict.Passed},
		{Name: "Exploration of a reconciledObjects subject replays s.yaml (run 1 of 2)", Outcome: verdict.BrokenSpec, Broken: []string{"reconcile/same-end-state", "reconcile/no-churn"}},
		{Name: "Exploration of a reconciledObjects subject replays s.yaml (run 2 of 2)", Outcome: verdict.BrokenSpec, Broken: []string{"reconcile/same-end-state", "reconcile/no-churn"}},
	}
	got := Count(specs, want)
	if got != (Tally{Broke: 2}) {
		t.Fatalf("Count = %+v, want the two replays broken and nothing else", got)
	}
	broken := append([]verdict.Spec{{Name: specs[0].Name, Outcome: verdict.BrokenSpec, Broken: []string{"reconcile/quiescent"}}}, specs[1:]...)
	if got := Count(broken, want); got != (Tally{Broke: 2, Errs: 1}) {
		t.Errorf("a reference run that broke: Count = %+v, want it an error", got)
	}
	ok, what, err := judgeCandidate(want, func() (Tally, error) { return Count(specs[:3], want), nil }, func() (Tally, error) { return got, nil }, nil)
	if !ok || err != nil {
		t.Errorf("a candidate broken in both confirming replays: %v, %q, %v", ok, what, err)
	}
}

// A seeded bug that needs no fault (release-finalizer-early) breaks its
// property in the fault-free reference run too, every time. Counted as an
// error, that run made every confirmation fail ("again in only 1 of 2"),
// so the shrink could not keep the empty schedule the bug needs.
func TestCountTakesAReferenceRunBrokenAsWantedForTheBugAtWork(t *testing.T) {
	const want = "reconcile/leaves-nothing-behind"
	ref := verdict.Spec{Name: "Exploration of a reconciledObjects subject fault-free reference run 1 of 2", Outcome: verdict.BrokenSpec, Broken: []string{want}}
	replay := verdict.Spec{Name: "Exploration of a reconciledObjects subject replays schedule.yaml (run 1 of 1)", Outcome: verdict.BrokenSpec, Broken: []string{want}}
	run := []verdict.Spec{ref, replay}
	if got := Count(run, want); got != (Tally{Broke: 1, Ref: 1}) {
		t.Fatalf("Count = %+v, want the replay broken and the reference run counted apart", got)
	}
	ok, what, err := judgeCandidate(want, func() (Tally, error) { return Count(run, want), nil }, func() (Tally, error) { return Count(run, want), nil }, nil)
	if !ok || err != nil {
		t.Errorf("the empty schedule of a bug that needs no fault, broken in its confirming replay: %v, %q, %v", ok, what, err)
	}
	// The correct mode's fault-free run breaking it is no hold of the
	// correct mode, however its replay ends.
	held := verdict.Spec{Name: replay.Name, Outcome: verdict.Passed}
	ok, what, err = judgeCandidate(want, func() (Tally, error) { return Count(run, want), nil }, nil, func() (Tally, error) { return Count([]verdict.Spec{ref, held}, want), nil })
	if ok || err != nil {
		t.Errorf("a correct mode whose reference run broke it: %v, %q, %v; want no evidence of the bug", ok, what, err)
	}
	other := verdict.Spec{Name: ref.Name, Outcome: verdict.BrokenSpec, Broken: []string{want, "reconcile/quiescent"}}
	if got := Count([]verdict.Spec{other, replay}, want); got != (Tally{Broke: 1, Errs: 1}) {
		t.Errorf("a reference run that broke more than the wanted properties: Count = %+v, want it an error", got)
	}
	errored := verdict.Spec{Name: ref.Name, Outcome: verdict.Error}
	if got := Count([]verdict.Spec{errored, replay}, want); got != (Tally{Broke: 1, Errs: 1}) {
		t.Errorf("a reference run in an error: Count = %+v, want it an error", got)
	}
}
