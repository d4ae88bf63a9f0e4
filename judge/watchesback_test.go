package judge

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// TestRecordedEndStateTakenBeforeTheWatchesWereBack: a hunt's schedule on
// KEDA (v2.18.1) partitioned it from the API server while the harness
// changed its ScaledObject (maxReplicaCount 3 to 5). After the recovery
// KEDA's informers listed again one by one as their backoff let them, the
// ScaledObjects' last, 5.4 s later. The harness took the end state 5 s
// after the recovery, the objects ready all along, before KEDA had seen
// the change: same-end-state broke on the HPA's maxReplicas, and the
// quiet window, begun once the watches were back, met KEDA's status
// writes as it caught up. As the log stood at that end mark KEDA was not
// watching ScaledObjects again (StaleWatches); it was before it updated
// the HPA. The recovery's settle window now starts once they are back
// (steadystate.WatchesBack, SettlePhase.WatchesBack).
func TestRecordedEndStateTakenBeforeTheWatchesWereBack(t *testing.T) {
	e := readEvidence(t, filepath.Join("keda", "explore-keda-steady-partition-behind.json"))
	var phases []SettlePhase
	var end EndMark
	if err := json.Unmarshal([]byte(e.Facts[FactSteadyRecover.Name]), &phases); err != nil || len(phases) != 1 {
		t.Fatalf("recover phases %v, %v", phases, err)
	}
	if err := json.Unmarshal([]byte(e.Facts[FactSteadyEnd.Name]), &end); err != nil {
		t.Fatal(err)
	}
	if len(e.Faults) == 0 {
		t.Fatal("the recorded schedule has no fault")
	}
	logs := map[string][]proxy.Request{"keda-0": e.Proxies["keda-0"].Requests}
	first, since := e.Faults[0].Start, phases[0].Since
	if stale := StaleWatches(logs, first, end.At); !slices.Contains(stale, "scaledobjects") {
		t.Errorf("at the end mark, %s after the recovery: stale %v, want scaledobjects", end.At.Sub(since), stale)
	}
	var back, hpaUpdate time.Time
	for _, r := range logs["keda-0"] {
		if r.Verb == "watch" && r.Resource == "scaledobjects" && r.Start.After(since) && back.IsZero() {
			back = r.Start
		}
		if r.Verb == "update" && r.Resource == "horizontalpodautoscalers" && r.Start.After(since) {
			hpaUpdate = r.Start
		}
	}
	if back.IsZero() || hpaUpdate.IsZero() || !back.Before(hpaUpdate) || !back.After(end.At) {
		t.Fatalf("scaledobjects watched again at %v, the HPA updated at %v, the end mark at %v: want end mark, watch, update in that order", back, hpaUpdate, end.At)
	}
	if stale := StaleWatches(logs, first, back.Add(time.Millisecond)); len(stale) > 0 {
		t.Errorf("once the ScaledObjects' watch was back: stale %v, want none", stale)
	}
	if d := back.Sub(since); d < 5*time.Second || d > 6*time.Second {
		t.Errorf("watched again %s after the recovery; the log says 5.4 s", d)
	}
	// The recovery's wait, as the harness now makes it and the judge
	// re-makes it: W from the ScaledObjects' watch, within what is left
	// of T, so the end state comes after KEDA's HPA update.
	if got := WatchesBackAt(logs, first, since, hpaUpdate); !got.Equal(back) {
		t.Errorf("WatchesBackAt %v, want the ScaledObjects' watch at %v", got, back)
	}
	ph := phases[0]
	ph.WatchesBack = WatchesBackAt(logs, first, since, hpaUpdate)
	c := ph.Convergence(time.Minute, 5*time.Second)
	if !c.Since.Equal(back) || c.Within != time.Minute-back.Sub(since) || c.Window != 5*time.Second {
		t.Errorf("the recovery's wait %+v, want from %v within %s", c, back, time.Minute-back.Sub(since))
	}
	if end := c.Since.Add(c.Window); !end.After(hpaUpdate) {
		t.Errorf("the earliest end state %v is not after the HPA update %v", end, hpaUpdate)
	}
}

// TestSettlePhaseConvergence: a phase's wait is from Since unless the
// controller watched again later, then from then within what is left of
// T; from T at the latest, with none of it left.
func TestSettlePhaseConvergence(t *testing.T) {
	since := time.Unix(1000, 0)
	for _, tc := range []struct {
		back      time.Time
		from      time.Time
		within, w time.Duration
	}{
		{time.Time{}, since, time.Minute, time.Minute},
		{since, since, time.Minute, time.Minute},
		{since.Add(-time.Second), since, time.Minute, time.Minute},
		{since.Add(5 * time.Second), since.Add(5 * time.Second), time.Minute, 55 * time.Second},
		// Never past T: W alone from T.
		{since.Add(2 * time.Minute), since.Add(time.Minute), time.Minute, 0},
	} {
		c := SettlePhase{Since: since, WatchesBack: tc.back}.Convergence(tc.within, 5*time.Second)
		if !c.Since.Equal(tc.from) || c.Within != tc.w || c.Window != 5*time.Second {
			t.Errorf("watches back %v: %+v, want from %v within %s", tc.back, c, tc.from, tc.w)
		}
		// A refused write's retry due at the same time counts alike, and
		// the later of the two wins, whichever it is.
		for _, ph := range []SettlePhase{
			{Since: since, RetriesDue: tc.back, WatchesBack: tc.back.Add(-time.Second)},
			{Since: since, WatchesBack: tc.back, RetriesDue: tc.back.Add(-time.Second)},
		} {
			c = ph.Convergence(tc.within, 5*time.Second)
			if !c.Since.Equal(tc.from) || c.Within != tc.w {
				t.Errorf("watches back %v, retries due %v: %+v, want from %v within %s", ph.WatchesBack, ph.RetriesDue, c, tc.from, tc.w)
			}
		}
	}
}

// TestWatchesBackAt: the latest start among the watches of what was
// stale at the recovery; the recovery when nothing was; zero when one is
// still not watched.
func TestWatchesBackAt(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	w := func(res string, start, end float64) proxy.Request {
		r := proxy.Request{RequestInfo: proxy.RequestInfo{Verb: "watch", Resource: res}, Start: at(start)}
		if end > 0 {
			r.End = at(end)
		}
		return r
	}
	first, since, now := at(2), at(5), at(20)
	for _, tc := range []struct {
		name string
		logs map[string][]proxy.Request
		want time.Time
	}{
		{"not cut", map[string][]proxy.Request{"a": {w("pods", 1, 0)}}, since},
		{"cut and back before the recovery", map[string][]proxy.Request{"a": {w("pods", 1, 3), w("pods", 4, 0)}}, since},
		{"cut, back after", map[string][]proxy.Request{"a": {w("pods", 1, 3), w("pods", 9, 0)}}, at(9)},
		{"the later of two replicas", map[string][]proxy.Request{"a": {w("pods", 1, 3), w("pods", 9, 0)}, "b": {w("nodes", 1, 3), w("nodes", 12, 0)}}, at(12)},
		{"not back", map[string][]proxy.Request{"a": {w("pods", 1, 3)}}, time.Time{}},
	} {
		if got := WatchesBackAt(tc.logs, first, since, now); !got.Equal(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestRecoveryJudgedFromTheWatchesReturn: the recovered-state property
// over a constructed run whose widget turns not ready after the
// controller's restart (6.5 s) and is ready again later, the watches back
// at 7 s (none recorded in the fifth case), or a refused write's retry
// due then (the next two); a retry due after T leaves W from T. It holds when the widget is
// ready again before the watches return, or soon enough after to hold W
// (1 s) by the phase's end, T+W (3 s) after the restart; it breaks when
// it is ready too late for that. The last two cases are where the return
// decides: a widget ready at the return but not for W from it breaks,
// while a judgement from the restart itself lets it pass on the second
// before. A broken one names the last mismatch, also when the state did
// not match from the start, and says from what it counted and how much of
// T was left then (not "T=1.5s", a bound the subject was never given).
func TestRecoveryJudgedFromTheWatchesReturn(t *testing.T) {
	for _, tc := range []struct {
		name            string
		notReady, ready float64
		back, due       float64
		want            verdict.Outcome
		reason          string
	}{
		{"ready again before the watches return", 6.6, 6.9, 7, 0, verdict.Held, ""},
		{"ready again in time to hold W", 6.6, 8.3, 7, 0, verdict.Held, ""},
		{"ready again too late to hold W", 6.6, 8.6, 7, 0, verdict.Broken, "matching for only 900ms of W=1s (last mismatch: Widget steady/widgets.example.org:ns/w1 is not ready"},
		{"not ready for W from the watches' return", 7.6, 10, 7, 0, verdict.Broken, "still not matching 2.5s after the controller watched again what it watched when the faults began (500ms after the controller's restart), with 1.5s of T=2s left: Widget"},
		{"the same, judged from the recovery", 7.6, 10, 0, 0, verdict.Held, ""},
		{"not ready for W from a refused write's retry", 7.6, 10, 0, 7, verdict.Broken, "still not matching 2.5s after the retries of the writes the faults refused were due (500ms after the controller's restart), with 1.5s of T=2s left: Widget"},
		{"the later of the watches' return and the retry", 7.6, 10, 6.6, 7, verdict.Broken, "after the retries of the writes the faults refused were due (500ms after"},
		{"a retry due after T: W from T", 6.51, 6.6, 0, 8.55, verdict.Held, ""},
	} {
		e := constructSteadyRun("correct")
		r := &steadyRun{t0: e.Start, widgets: e.Histories[steadyWidgets]}
		fin := "example.org/cleanup"
		r.widget(tc.notReady, "MODIFIED", widget(2, 2, "False", false, fin))
		r.widget(tc.ready, "MODIFIED", widget(2, 2, "True", false, fin))
		slices.SortStableFunc(r.widgets, func(a, b oracle.EventRecord) int { return a.At.Compare(b.At) })
		e.Histories[steadyWidgets] = r.widgets
		ph := SettlePhase{What: "the controller's restart", Since: r.at(6.5), Within: "2s", Window: "1s", Objects: []string{SteadyKey(steadyWidgets, "ns", "w1")}}
		if tc.back > 0 {
			ph.WatchesBack = r.at(tc.back)
		}
		if tc.due > 0 {
			ph.RetriesDue = r.at(tc.due)
		}
		FactSteadyRecover.Put(e, []SettlePhase{ph})
		got := oracle.Judge(e.Start, catalog.SteadyRecovers, Offline[catalog.SteadyRecovers.ID](e))
		if got.Outcome != tc.want || !strings.Contains(got.Reason, tc.reason) {
			t.Errorf("%s: %s (%s), want %s saying %q", tc.name, got.Outcome, got.Reason, tc.want, tc.reason)
		}
	}
}

// TestWatchesOfAStoppedProcessEndWithIt: a self-test run of the stack
// controller's degraded-after-restart, twelve at a time, restarted it
// right after its first write. The proxy marked the killed process's four
// watches closed 9 ms after the restart's End, so at the recovery the
// replica looked as if it had watched all along: W was counted from the
// recovery, the Stack (no status yet: Current) looked ready for it, and
// the next change was made 2 s after the restart, before the restarted
// process wrote Degraded=True. recovers held and settles broke: the
// wrong property. A stopped process's requests end with it
// (EndedWithTheirProcess): W is counted from the restarted process's
// last watch, and recovers breaks.
func TestWatchesOfAStoppedProcessEndWithIt(t *testing.T) {
	e := readEvidence(t, filepath.Join("stack", "reconcile-degraded-after-restart-watches-closed-late.json"))
	var phases []SettlePhase
	if err := json.Unmarshal([]byte(e.Facts[FactSteadyRecover.Name]), &phases); err != nil || len(phases) != 1 {
		t.Fatalf("recover phases %v, %v", phases, err)
	}
	restart := e.Faults[0]
	if !restart.StoppedProcess() || restart.Target != "stack-0" {
		t.Fatalf("the recorded fault %+v is not the restart of stack-0", restart)
	}
	logs := map[string][]proxy.Request{"stack-0": e.Proxies["stack-0"].Requests}
	first, since := restart.Start, phases[0].Since
	var back time.Time // the restarted process's last first watch
	for _, r := range logs["stack-0"] {
		if r.Verb == "watch" && r.Start.After(restart.Start) && r.Start.After(back) {
			back = r.Start
		}
	}
	if d := back.Sub(since); d < time.Second {
		t.Fatalf("the restarted process watched again %s after the recovery; the log says 1.4 s", d)
	}
	// As the harness read the log: nothing stale at the recovery.
	if got := WatchesBackAt(logs, first, since, e.End); !got.Equal(since) {
		t.Fatalf("from the log as recorded: watches back at %v, want the recovery %v (the recorded false start)", got, since)
	}
	ended := EndedWithTheirProcess(logs, e.Faults)
	if stale := StaleWatches(ended, first, since); len(stale) != 4 {
		t.Errorf("at the recovery, with the stopped process's requests ended: stale %v, want its four resources", stale)
	}
	if got := WatchesBackAt(ended, first, since, e.End); !got.Equal(back) {
		t.Errorf("watches back at %v, want the restarted process's last watch at %v", got, back)
	}
	if got := logs["stack-0"]; !slices.EqualFunc(got, e.Proxies["stack-0"].Requests, func(a, b proxy.Request) bool { return a.End.Equal(b.End) }) {
		t.Error("EndedWithTheirProcess changed the log it was given")
	}
	// Another replica's requests, and requests the new process began,
	// are left as they are.
	other := map[string][]proxy.Request{"other": logs["stack-0"]}
	if got := EndedWithTheirProcess(other, e.Faults)["other"]; !slices.EqualFunc(got, logs["stack-0"], func(a, b proxy.Request) bool { return a.End.Equal(b.End) }) {
		t.Error("the requests of a replica no fault stopped were changed")
	}

	// The recovery judged with W from there: the Degraded=True the
	// restarted process wrote is inside it.
	for _, c := range []struct {
		back time.Time
		want verdict.Outcome
	}{{since, verdict.Held}, {back, verdict.Broken}} {
		ph := phases[0]
		if c.back.After(since) {
			ph.WatchesBack = c.back
		}
		FactSteadyRecover.Put(e, []SettlePhase{ph})
		got := oracle.Judge(e.Start, catalog.SteadyRecovers, Offline[catalog.SteadyRecovers.ID](e))
		if got.Outcome != c.want || (c.want == verdict.Broken && !strings.Contains(got.Reason, "Degraded is True")) {
			t.Errorf("recovers with the watches back at %v: %s (%s), want %s", c.back, got.Outcome, got.Reason, c.want)
		}
	}
}
