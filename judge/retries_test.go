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
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// TestRecordedEndStateTakenWhileARetryWasOwed: ten replays of a hunt's
// schedule on JobSet (v0.12.0) answered its writes of jobsets 500 for
// 20 s, from the resumption of a suspended JobSet on. JobSet's status
// write was refused 13 or 14 times in a row within a second, and the
// workqueue's back-off for the next try is 5 ms·2^12 = 20.5 s or
// 5 ms·2^13 = 41 s. The harness took the end state 5 s after the
// recovery, the JobSet ready by kstatus all along (its status says
// nothing of what it observed). In the 7 runs of 14 refusals (run 1
// here) that was before the retry: same-end-state broke on the status as
// it was before the resumption. In the 3 of 13 (run 7 here) the retry
// had come 1.5 s after the recovery, and same-end-state broke on the
// state it wrote. At each run's end mark OwedRetries tells the two apart,
// and the recovery's wait now holds W until the retry was due.
func TestRecordedEndStateTakenWhileARetryWasOwed(t *testing.T) {
	read := func(run string) (*evidence.Evidence, SettlePhase, EndMark, map[string][]proxy.Request) {
		t.Helper()
		e := readEvidence(t, filepath.Join("jobset", "explore-jobset-answer-500-run-"+run+".json"))
		var phases []SettlePhase
		var end EndMark
		if err := json.Unmarshal([]byte(e.Facts[FactSteadyRecover.Name]), &phases); err != nil || len(phases) != 1 {
			t.Fatalf("run %s: recover phases %v, %v", run, phases, err)
		}
		if err := json.Unmarshal([]byte(e.Facts[FactSteadyEnd.Name]), &end); err != nil {
			t.Fatal(err)
		}
		logs := map[string][]proxy.Request{}
		for id, p := range e.Proxies {
			logs[id] = p.Requests
		}
		return e, phases[0], end, logs
	}

	e, ph, end, logs := read("01")
	owed := OwedRetries(logs, end.Namespace, nil, end.At)
	if len(owed) != 1 {
		t.Fatalf("run 1 at its end mark: owed %+v, want the JobSet's status write", owed)
	}
	o := owed[0]
	if o.Object != "jobsets.jobset.x-k8s.io/"+end.Namespace+"/train/status" || o.Refused != 14 {
		t.Errorf("run 1: owed %s refused %d times, want the JobSet train's status refused 14 times", o.Object, o.Refused)
	}
	if !o.Last.After(e.Faults[0].Start) || !o.Last.Before(e.Faults[0].End) {
		t.Errorf("run 1: the last refusal at %v, not within the fault (%v to %v)", o.Last, e.Faults[0].Start, e.Faults[0].End)
	}
	if d := o.Due.Sub(o.Last); d < 41*time.Second || d > 43*time.Second {
		t.Errorf("run 1: retry due %s after the last refusal, want the back-off of 41 s and the slack", d)
	}
	if p := Pending(owed, end.At); len(p) != 1 {
		t.Errorf("run 1: at the end mark, %s after the recovery, the retry was due at %v: pending %+v, want it", end.At.Sub(ph.Since), o.Due, p)
	}
	// The wait as the harness now makes it: W from the retry's due time.
	ph.RetriesDue = o.Due
	c := ph.Convergence(time.Minute, 5*time.Second)
	if !c.Since.Equal(o.Due) || c.Within != time.Minute-o.Due.Sub(ph.Since) {
		t.Errorf("run 1: the recovery's wait %+v, want from %v", c, o.Due)
	}

	_, ph, end, logs = read("07")
	if owed := OwedRetries(logs, end.Namespace, nil, end.At); len(owed) != 0 {
		t.Errorf("run 7: the retry came %s after the recovery; owed at the end mark %+v, want none", end.At.Sub(ph.Since), owed)
	}
	// Before that retry, the same refusal was owed.
	var retry time.Time
	for _, r := range logs["jobset-0"] {
		if r.Resource == "jobsets" && r.IsWrite() && r.Start.After(ph.Since) {
			retry = r.Start
			break
		}
	}
	if retry.IsZero() {
		t.Fatal("run 7: no write of the JobSet after the recovery")
	}
	owed = OwedRetries(logs, end.Namespace, nil, retry.Add(-time.Millisecond))
	if len(Pending(owed, retry)) != 1 || owed[0].Refused != 13 {
		t.Fatalf("run 7: just before the retry at %v: owed %+v, want the JobSet's status write pending after 13 refusals", retry, owed)
	}
	if d := retry.Sub(owed[0].Last); d < 20*time.Second || d > owed[0].Due.Sub(owed[0].Last) {
		t.Errorf("run 7: the retry came %s after the last refusal, want the back-off of 20.5 s, before it was due (%s)", d, owed[0].Due.Sub(owed[0].Last))
	}
}

// TestOwedRetries: an object is owed a retry when its last write, by any
// replica, was an injected fault's refusal; counted in a row with the
// server's own refusals before it, back to a success; a write of another
// subresource, a sealed proxy's refusal and a refused create that names
// nothing owe none.
func TestOwedRetries(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	w := func(name, sub string, start float64, code int, fault string) proxy.Request {
		return proxy.Request{
			RequestInfo: proxy.RequestInfo{Verb: "update", Resource: "widgets", Group: "example.org", Namespace: "ns", Name: name, Subresource: sub},
			Code:        code, Fault: fault, Start: at(start), End: at(start + 0.01),
		}
	}
	logs := map[string][]proxy.Request{
		"ctl-0": {
			w("ok", "", 1, 200, ""),
			w("refused", "", 1, 200, ""), w("refused", "", 2, 409, ""), w("refused", "", 3, 500, "respond-1"), w("refused", "", 5, 500, "respond-1"),
			w("retried", "", 2, 500, "respond-1"), w("retried", "", 4, 200, ""),
			w("by-server", "", 2, 409, ""),
			w("after-at", "", 30, 500, "respond-1"),
			w("status", "status", 2, 500, "respond-1"), w("status", "", 3, 200, ""),
			w("sealed", "", 2, 503, proxy.SealedFault),
			w("failover", "", 2, 500, "respond-1"),
			{RequestInfo: proxy.RequestInfo{Verb: "create", Resource: "widgets", Group: "example.org", Namespace: "ns"}, Code: 500, Fault: "respond-1", Start: at(2), End: at(2.01)},
			{RequestInfo: proxy.RequestInfo{Verb: "update", Resource: "widgets", Group: "example.org", Namespace: "other", Name: "x"}, Code: 500, Fault: "respond-1", Start: at(2), End: at(2.01)},
			{RequestInfo: proxy.RequestInfo{Verb: "update", Resource: "leases", Group: "coordination.k8s.io", Namespace: "ns", Name: "l"}, Code: 500, Fault: "respond-1", Start: at(2), End: at(2.01)},
		},
		// The next leader wrote what the first one was refused.
		"ctl-1": {w("failover", "", 6, 200, "")},
	}
	got := OwedRetries(logs, "ns", nil, at(10))
	if len(got) != 2 || got[0].Object != "widgets.example.org/ns/refused" || got[1].Object != "widgets.example.org/ns/status/status" {
		t.Fatalf("owed %+v, want the widget refused last and the refused status write", got)
	}
	o := got[0]
	if o.Replica != "ctl-0" || o.Refused != 3 || o.Gap != 2*time.Second || !o.Last.Equal(at(5.01)) {
		t.Errorf("owed %+v, want refused 3 times, 2s apart, last answered at 5.01 s", o)
	}
	if want := RetryDue(at(5.01), 3, 2*time.Second); !o.Due.Equal(want) || !want.Equal(at(10.01)) {
		t.Errorf("due %v, want twice the gap and the slack after the last refusal (%v)", o.Due, want)
	}
	if p := Pending(got, at(10)); len(p) != 1 {
		t.Errorf("pending at 10 s: %+v, want the one due at 10.01 s", p)
	}
	if p := Pending(got, at(10.01)); len(p) != 0 {
		t.Errorf("pending when due: %+v, want none", p)
	}
	o.Retried = true
	if p := Pending([]OwedRetry{o}, at(6)); len(p) != 0 {
		t.Errorf("pending once retried: %+v, want none", p)
	}
}

// TestRetryWait: the wait ends when nothing owed is pending; what held it
// is kept, marked retried once its object was written again, and not
// when it only came due.
func TestRetryWait(t *testing.T) {
	t0 := time.Unix(1000, 0)
	a := OwedRetry{Object: "a", Last: t0, Due: t0.Add(10 * time.Second)}
	b := OwedRetry{Object: "b", Last: t0, Due: t0.Add(3 * time.Second)}
	var w RetryWait
	if !w.Look(nil, t0) || w.Held() != nil {
		t.Fatalf("nothing owed: the wait goes on, or holds %+v", w.Held())
	}
	if w.Look([]OwedRetry{a, b}, t0.Add(time.Second)) {
		t.Fatal("two pending: the wait ended")
	}
	// b came due and was not retried; a was written again.
	if !w.Look([]OwedRetry{b}, t0.Add(4*time.Second)) {
		t.Fatal("a retried, b due: the wait did not end")
	}
	held := w.Held()
	if len(held) != 2 || held[0].Object != "a" || !held[0].Retried || held[1].Object != "b" || held[1].Retried {
		t.Errorf("held %+v, want a retried and b not", held)
	}
	if p := Pending(held, t0.Add(4*time.Second)); len(p) != 0 {
		t.Errorf("pending at the wait's end: %+v, want none", p)
	}
}

// TestRetryDue: client-go's workqueue back-off for that many failures in
// a row, or twice the last gap when longer, plus the slack; the back-off
// at most 1000 s.
func TestRetryDue(t *testing.T) {
	last := time.Unix(1000, 0)
	for _, tc := range []struct {
		refused int
		gap     time.Duration
		want    time.Duration
	}{
		{1, 0, 5*time.Millisecond + RetrySlack},
		{14, 10 * time.Millisecond, 40960*time.Millisecond + RetrySlack},
		{3, 2 * time.Second, 4*time.Second + RetrySlack},
		{40, 0, 1000*time.Second + RetrySlack},
		{200, 0, 1000*time.Second + RetrySlack},
	} {
		if got := RetryDue(last, tc.refused, tc.gap).Sub(last); got != tc.want {
			t.Errorf("%d refused, gap %s: due after %s, want %s", tc.refused, tc.gap, got, tc.want)
		}
	}
}

// TestReAddOf: a replica's writes of one object refused in a row, then
// written with success, then once more when a failure's back-off ended.
func TestReAddOf(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)
	var reqs []proxy.Request
	write := func(at time.Duration, code int, fault string) proxy.Request {
		r := proxy.Request{ID: uint64(len(reqs) + 1), Code: code, Fault: fault, Start: t0.Add(at), End: t0.Add(at + 2*time.Millisecond)}
		r.Verb, r.Resource, r.Subresource, r.Namespace, r.Name = "patch", "widgets", "status", "run", "w"
		r.Group = "example.com"
		reqs = append(reqs, r)
		return r
	}
	// 10 refusals in a row, the last answered at +0.902s; a success at
	// +3s. The longest back-off, failure 10's, 5ms·2^9 = 2.56s, ended at
	// +3.462s: a write at +20s is no re-add.
	for i := range 10 {
		write(time.Duration(i)*100*time.Millisecond, 0, "partition-1")
	}
	write(3*time.Second, 200, "")
	late := write(20*time.Second, 200, "")
	if ra, ok := ReAddOf(reqs, late, "run", nil); ok {
		t.Errorf("a write 19 s after the chain is taken for a re-add: %+v", ra)
	}
	reqs = reqs[:len(reqs)-1]

	// 13 refusals in a row: failure 13's back-off is 5ms·2^12 = 20.48s.
	reqs = nil
	for i := range 13 {
		write(time.Duration(i)*50*time.Millisecond, 0, "partition-1")
	}
	last := reqs[len(reqs)-1].End
	write(3*time.Second, 200, "")
	readd := write(last.Sub(t0)+20480*time.Millisecond+10*time.Millisecond, 200, "")
	ra, ok := ReAddOf(reqs, readd, "run", nil)
	if !ok || ra.Failure != 13 || ra.Refused != 13 || !ra.Last.Equal(last) || ra.Object != "widgets.example.com/run/w/status" {
		t.Fatalf("the write 20.49 s after the 13th refusal: %+v, %v; want failure 13's re-add", ra, ok)
	}
	// A second write after it is not the re-add's.
	again := write(readd.Start.Sub(t0)+100*time.Millisecond, 200, "")
	if _, ok := ReAddOf(reqs, again, "run", nil); ok {
		t.Error("the write after the re-add's is taken for one too")
	}
	// Outside the interval: 1.5 s after it was due.
	reqs = reqs[:len(reqs)-2]
	off := write(last.Sub(t0)+20480*time.Millisecond+1500*time.Millisecond, 200, "")
	if _, ok := ReAddOf(reqs, off, "run", nil); ok {
		t.Error("a write 1.5 s after the re-add was due is taken for it")
	}
	// Refused by the API server itself, not by a fault: no fault's re-add.
	reqs = reqs[:len(reqs)-1]
	for i := range 13 {
		reqs[i].Fault, reqs[i].Code = "", 409
	}
	readd = write(last.Sub(t0)+20480*time.Millisecond+10*time.Millisecond, 200, "")
	if _, ok := ReAddOf(reqs, readd, "run", nil); ok {
		t.Error("a re-add of the API server's own refusals is taken for a fault's")
	}
}

// TestQuiescentLeavesALateReAddAside: a hunt's schedule on the Prometheus
// operator (v0.93.0), replayed, refused its connections for 1.8 s while
// it made its first Prometheus. Its status sync failed 13 times in a row
// (an apply, then its fallback without the scale fields: 26 refused
// patches), then succeeded three times. 20.48 s after the 13th failure,
// 5ms·2^12, client-go's workqueue brought the re-add that failure left
// waiting, and the operator applied the same status again, inside the
// quiet window: the API server stored nothing (no watch event). The run
// broke quiescent; the judge now leaves that write aside, and only it.
func TestQuiescentLeavesALateReAddAside(t *testing.T) {
	const file = "prometheus-operator/explore-prometheus-operator-steady-late-readd.json"
	e := readEvidence(t, file)
	if rec := e.Records[slices.IndexFunc(e.Records, func(r verdict.Record) bool { return r.ID == catalog.SteadyQuiescent.ID })]; rec.Outcome != verdict.Broken {
		t.Fatalf("the run recorded quiescent %s, want broken", rec.Outcome)
	}
	expect(t, "the re-add's write", judgedOn(e, catalog.SteadyQuiescent), verdict.Held, "")
	if b := BoundText(catalog.SteadyQuiescent.ID, e); !strings.Contains(b, "left aside, patch prometheuses.monitoring.coreos.com/") || !strings.Contains(b, "failure 13 of its 26 refused writes in a row") {
		t.Errorf("the bound does not say what was left aside: %s", b)
	}

	// The write, as the run recorded it.
	q, err := FactSteadyQuiet.Get(e)
	if err != nil {
		t.Fatal(err)
	}
	var id string
	var at int
	for pid, p := range e.Proxies {
		for i, r := range p.Requests {
			if r.Verb == "patch" && !r.Start.Before(q.From) && !r.Start.After(q.To) {
				id, at = pid, i
			}
		}
	}
	if id == "" {
		t.Fatal("no write in the quiet window")
	}
	w := e.Proxies[id].Requests[at]
	history := historyOf(w.GroupResource(), w.Namespace, w.Namespace)

	// Had it changed the Prometheus (a watch event after it), it counts.
	changed := readEvidence(t, file)
	recs := changed.Histories[history]
	if len(recs) == 0 {
		t.Fatalf("no history %s", history)
	}
	ev := recs[len(recs)-1]
	for _, r := range recs {
		if r.Key == w.Namespace+"/"+w.Name && r.Type == "MODIFIED" {
			ev = r
		}
	}
	ev.At = w.End.Add(5 * time.Millisecond)
	changed.Histories[history] = append(recs, ev)
	expect(t, "a re-add that changed the object", judgedOn(changed, catalog.SteadyQuiescent), verdict.Broken, "wrote 1 times")

	// Two seconds later than the back-off says, it counts.
	moved := readEvidence(t, file)
	p := moved.Proxies[id]
	p.Requests[at].Start = p.Requests[at].Start.Add(-2 * time.Second)
	p.Requests[at].End = p.Requests[at].End.Add(-2 * time.Second)
	moved.Proxies[id] = p
	expect(t, "a write off the back-off", judgedOn(moved, catalog.SteadyQuiescent), verdict.Broken, "wrote 1 times")

	// The history of its object recorded, and missing from the evidence:
	// whether it changed anything cannot be told, and quiescent is not
	// judged.
	lost := readEvidence(t, file)
	delete(lost.Histories, history)
	expect(t, "the history lost", judgedOn(lost, catalog.SteadyQuiescent), verdict.NotEvaluated, `history "`+history+`"`)
	// Never recorded (a resource the run did not watch): it counts.
	unrecorded := readEvidence(t, file)
	delete(unrecorded.Histories, history)
	recorded := get(read(unrecorded), FactSteadyHistories)
	FactSteadyHistories.Put(unrecorded, slices.DeleteFunc(recorded, func(h string) bool { return h == history }))
	expect(t, "a resource not recorded", judgedOn(unrecorded, catalog.SteadyQuiescent), verdict.Broken, "wrote 1 times")
}
