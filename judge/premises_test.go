package judge

import (
	"strings"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

func judged(t *testing.T, id string, e *evidence.Evidence) verdict.Record {
	t.Helper()
	p, err := catalog.Property(id)
	if err != nil {
		t.Fatal(err)
	}
	if e.Format == 0 {
		e.Format, e.Spec, e.Start, e.End = evidence.Format, "s", c0, c0.Add(time.Minute)
	}
	return oracle.Judge(e.Start, p, Offline[id](e))
}

func records(h *oracle.History) []oracle.EventRecord { return h.Records() }

func TestFaultPremises(t *testing.T) {
	terminate := chaos.ProcessFault{Action: chaos.Terminate}.Name()
	for _, tc := range []struct {
		name   string
		id     string
		faults []chaos.Injection
		want   verdict.Outcome
		reason string
	}{
		{"terminated", catalog.LeaderFollowerTerminated.ID, []chaos.Injection{{Fault: terminate}}, verdict.Held, ""},
		{"terminate failed", catalog.LeaderFollowerTerminated.ID, []chaos.Injection{{Fault: terminate, Error: "terminate leader-1: no such pod"}}, verdict.Broken, "no such pod"},
		{"another fault only", catalog.LeaderFollowerTerminated.ID, []chaos.Injection{{Fault: "partition"}}, verdict.Broken, "no process-terminate"},
		{"no timeline", catalog.LeaderHolderKilled.ID, nil, verdict.NotEvaluated, "records no fault"},
		{"storm deleted pods", catalog.LostStormHappened.ID, []chaos.Injection{{Fault: "pod-deletion"}, {Fault: "pod-deletion", Detail: map[string]string{"deleted": "web-1"}}}, verdict.Held, ""},
		{"storm deleted nothing", catalog.LostStormHappened.ID, []chaos.Injection{{Fault: "pod-deletion", Detail: map[string]string{"deleted": ""}}}, verdict.Broken, "deleted no pod"},
		{"one create won", catalog.FgOneCreateWins.ID, []chaos.Injection{{Fault: "concurrent-create", Detail: map[string]string{"created": "1", "exists": "2"}}}, verdict.Held, ""},
		{"two creates won", catalog.FgOneCreateWins.ID, []chaos.Injection{{Fault: "concurrent-create", Detail: map[string]string{"created": "2", "exists": "1"}}}, verdict.Broken, "let 2 of 3 creates"},
	} {
		got := judged(t, tc.id, &evidence.Evidence{Faults: tc.faults})
		if got.Outcome != tc.want || !strings.Contains(got.Reason, tc.reason) {
			t.Errorf("%s: %s %q, want %s with %q", tc.name, got.Outcome, got.Reason, tc.want, tc.reason)
		}
	}
}

// The partition premise: another holder in the recorded Lease when the
// partition healed.
func TestPartitioned(t *testing.T) {
	h := oracle.NewHistory()
	h.Add(oracle.Event{At: c0, Type: "ADDED", Key: "ns/l", Object: leaseObj("a", 0)})
	h.Add(oracle.Event{At: c0.Add(5 * time.Second), Type: "MODIFIED", Key: "ns/l", Object: leaseObj("b", 1)})
	for _, tc := range []struct {
		name string
		heal time.Duration
		want verdict.Outcome
	}{
		{"taken over before the heal", 6 * time.Second, verdict.Held},
		{"healed before anyone took over", 4 * time.Second, verdict.Broken},
	} {
		e := &evidence.Evidence{
			Facts:     map[string]string{FactLease.Name: "ns/l"},
			Histories: map[string][]oracle.EventRecord{HistoryLease: records(h)},
			Faults:    []chaos.Injection{{Fault: "partition", Start: c0.Add(time.Second), End: c0.Add(tc.heal)}},
		}
		if got := judged(t, catalog.LeaderPartitioned.ID, e); got.Outcome != tc.want {
			t.Errorf("%s: %s (%s)", tc.name, got.Outcome, got.Reason)
		}
	}
}

// The same-name premise: the predecessor's claim and Managed object were
// both deleting when the successor was created.
func TestOldDeleting(t *testing.T) {
	hist := func(states ...string) []oracle.EventRecord {
		h := oracle.NewHistory()
		for i, s := range states {
			at := c0.Add(time.Duration(i) * time.Second)
			switch s {
			case "up":
				h.Add(oracle.Event{At: at, Type: "ADDED", Key: "ns/old", Object: obj("old", map[string]any{})})
			case "deleting":
				h.Add(oracle.Event{At: at, Type: "MODIFIED", Key: "ns/old", Object: deleting(obj("old", map[string]any{}))})
			case "gone":
				h.Add(oracle.Event{At: at, Type: "DELETED", Key: "ns/old", Object: obj("old", map[string]any{})})
			}
		}
		return records(h)
	}
	for _, tc := range []struct {
		name             string
		claims, manageds []oracle.EventRecord
		created          time.Duration
		want             verdict.Outcome
	}{
		{"both deleting", hist("up", "deleting"), hist("up", "deleting"), 1500 * time.Millisecond, verdict.Held},
		{"claim already gone", hist("up", "deleting", "gone"), hist("up", "deleting", "gone"), 2500 * time.Millisecond, verdict.Broken},
		{"Managed not deleting yet", hist("up", "deleting"), hist("up"), 1500 * time.Millisecond, verdict.Broken},
	} {
		e := &evidence.Evidence{
			Facts:     map[string]string{FactClaim.Name: "ns/old", FactSuccessorCreated.Name: c0.Add(tc.created).Format(time.RFC3339Nano)},
			Histories: map[string][]oracle.EventRecord{HistoryClaims: tc.claims, HistoryManageds: tc.manageds},
		}
		if got := judged(t, catalog.FgOldDeleting.ID, e); got.Outcome != tc.want {
			t.Errorf("%s: %s (%s)", tc.name, got.Outcome, got.Reason)
		}
	}
}

func TestMoverFinished(t *testing.T) {
	for _, tc := range []struct {
		name  string
		facts map[string]string
		want  verdict.Outcome
	}{
		{"finished", map[string]string{FactMoved.Name: c0.Format(time.RFC3339Nano)}, verdict.Held},
		{"failed", map[string]string{FactMoved.Name: c0.Format(time.RFC3339Nano), FactMoverError.Name: "move: exit status 1: 422"}, verdict.Broken},
		{"refused the finalizer", map[string]string{FactMoved.Name: c0.Format(time.RFC3339Nano), FactMoverError.Name: "move: exit status 1: " + FinalizerRefused}, verdict.Held},
		{"never recorded", nil, verdict.NotEvaluated},
	} {
		if got := judged(t, catalog.FinMoverFinished.ID, &evidence.Evidence{Facts: tc.facts}); got.Outcome != tc.want {
			t.Errorf("%s: %s (%s)", tc.name, got.Outcome, got.Reason)
		}
	}
}

// The external resource's owner at a moment, from the external system's
// log: the last creator, none once deleted.
func TestOwnerAt(t *testing.T) {
	ops := []Op{
		{Op: "create", Name: "db", Owner: "old", Result: "ok", At: c0},
		{Op: "observe", Name: "db", Owner: "new", Result: "ok", At: c0.Add(time.Second)},
		{Op: "create", Name: "db", Owner: "new", Result: "exists", At: c0.Add(time.Second)},
		{Op: "delete", Name: "db", Owner: "old", Result: "ok", At: c0.Add(2 * time.Second)},
		{Op: "create", Name: "db", Owner: "new", Result: "ok", At: c0.Add(3 * time.Second)},
		{Op: "create", Name: "other", Owner: "x", Result: "ok", At: c0.Add(3 * time.Second)},
	}
	for at, want := range map[time.Duration]string{0: "old", time.Second: "old", 2 * time.Second: "", 3 * time.Second: "new"} {
		if got := OwnerAt(ops, "db", c0.Add(at)); got != want {
			t.Errorf("owner at +%s: %q, want %q", at, got, want)
		}
	}
}
