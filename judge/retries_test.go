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
// write was refused 14 times in a row within a second; the workqueue's
// back-off for a 14th failure is 41 s, so its retry came 21 s after the
// faults' recovery. The harness took the end state 5 s after the
// recovery, the JobSet ready by kstatus all along (its status says
// nothing of what it observed), in 7 of the 10 runs before that retry:
// same-end-state broke on the status as it was before the resumption
// (run 1 here). In the other 3 an event had brought the retry soon after
// the recovery (run 7 here), and same-end-state broke on the state the
// retry wrote. At each run's end mark OwedRetries tells the two apart,
// and the recovery's wait now holds W until the retry was due.
func TestRecordedEndStateTakenWhileARetryWasOwed(t *testing.T) {
	read := func(run string) (*evidence.Evidence, SettlePhase, EndMark, map[string][]proxy.Request) {
		t.Helper()
		e := readEvidence(t, filepath.Join("jobset", "explore-jobset-answer-500-run-"+run+".json"))
		var phases []SettlePhase
		var end EndMark
		if err := json.Unmarshal([]byte(e.Facts[FactSteadyRecover]), &phases); err != nil || len(phases) != 1 {
			t.Fatalf("run %s: recover phases %v, %v", run, phases, err)
		}
		if err := json.Unmarshal([]byte(e.Facts[FactSteadyEnd]), &end); err != nil {
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
	if o.Object != "jobsets.jobset.x-k8s.io/"+end.Namespace+"/train" || o.Refused != 14 {
		t.Errorf("run 1: owed %s refused %d times, want the JobSet train refused 14 times", o.Object, o.Refused)
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
	if owed := OwedRetries(logs, end.Namespace, nil, retry.Add(-time.Millisecond)); len(Pending(owed, retry)) != 1 {
		t.Errorf("run 7: just before the retry at %v: owed %+v, want the JobSet's status write pending", retry, owed)
	}
}

// TestOwedRetries: an object is owed a retry when its last write was a
// fault's refusal; counted in a row with the server's own refusals before
// it, not after a success.
func TestOwedRetries(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	w := func(name string, start float64, code int, fault string) proxy.Request {
		return proxy.Request{
			RequestInfo: proxy.RequestInfo{Verb: "update", Resource: "widgets", Group: "example.org", Namespace: "ns", Name: name},
			Code:        code, Fault: fault, Start: at(start), End: at(start + 0.01),
		}
	}
	logs := map[string][]proxy.Request{"ctl-0": {
		w("ok", 1, 200, ""),
		w("refused", 1, 200, ""), w("refused", 2, 409, ""), w("refused", 3, 500, "respond-1"), w("refused", 5, 500, "respond-1"),
		w("retried", 2, 500, "respond-1"), w("retried", 4, 200, ""),
		w("by-server", 2, 409, ""),
		w("after-at", 30, 500, "respond-1"),
		{RequestInfo: proxy.RequestInfo{Verb: "update", Resource: "widgets", Group: "example.org", Namespace: "other", Name: "x"}, Code: 500, Fault: "respond-1", Start: at(2), End: at(2.01)},
		{RequestInfo: proxy.RequestInfo{Verb: "update", Resource: "leases", Group: "coordination.k8s.io", Namespace: "ns", Name: "l"}, Code: 500, Fault: "respond-1", Start: at(2), End: at(2.01)},
	}}
	got := OwedRetries(logs, "ns", nil, at(10))
	if len(got) != 1 {
		t.Fatalf("owed %+v, want only the widget refused last", got)
	}
	o := got[0]
	if o.Replica != "ctl-0" || o.Object != "widgets.example.org/ns/refused" || o.Refused != 3 || o.Gap != 2*time.Second || !o.Last.Equal(at(5.01)) {
		t.Errorf("owed %+v, want widgets.example.org/ns/refused refused 3 times, 2s apart, last answered at 5.01 s", o)
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
