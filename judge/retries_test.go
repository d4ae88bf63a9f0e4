package judge

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/evidence"
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
