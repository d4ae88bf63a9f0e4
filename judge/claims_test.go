package judge

import (
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

var c0 = time.Unix(1000, 0)

// claimHistory records ns/app, a Database: "A" Ready=True/Available, "D"
// deleting with Ready=False/Deleting, "L" deleting but still
// Ready=True/Available, "-" gone; one state per 500ms from c0.
func claimHistory(states string) *oracle.History {
	h := oracle.NewHistory()
	for i, c := range states {
		at := c0.Add(time.Duration(i) * 500 * time.Millisecond)
		if c == '-' {
			h.Add(oracle.Event{At: at, Type: "DELETED", Key: "ns/app", Object: &unstructured.Unstructured{Object: map[string]any{}}})
			continue
		}
		obj := &unstructured.Unstructured{Object: map[string]any{}}
		obj.SetKind("Database")
		status, reason := "True", "Available"
		if c != 'A' {
			obj.SetDeletionTimestamp(nil)
			obj.Object["metadata"] = map[string]any{"deletionTimestamp": "2026-01-01T00:00:00Z"}
		}
		if c == 'D' {
			status, reason = "False", "Deleting"
		}
		if err := unstructured.SetNestedSlice(obj.Object, []any{map[string]any{"type": "Ready", "status": status, "reason": reason}}, "status", "conditions"); err != nil {
			panic(err)
		}
		h.Add(oracle.Event{At: at, Type: "MODIFIED", Key: "ns/app", Object: obj})
	}
	return h
}

func TestDeletingStatus(t *testing.T) {
	end := c0.Add(20 * time.Second)
	for _, tc := range []struct {
		name, states string
		broken       bool
	}{
		{"truthful until gone", "ALDDDDDDD-", false},
		{"lies for the whole deletion (the upstream bug)", "ALLLLLLLLLLLLL-", true},
		{"truthful, then lies again before it is gone", "ADDDDDDLLD-", true},
	} {
		err := DeletingStatus(claimHistory(tc.states), "ns/app", c0.Add(500*time.Millisecond), time.Second, end)
		if (err != nil) != tc.broken {
			t.Errorf("%s: err = %v, want broken=%v", tc.name, err, tc.broken)
		}
		var v *oracle.Violation
		if err != nil && !errors.As(err, &v) {
			t.Errorf("%s: %v carries no time", tc.name, err)
		}
	}
	// The upstream bug's message says what the claim showed when it had
	// to speak, not only that it "converged" late.
	err := DeletingStatus(claimHistory("ALLLLLLLLLLLLL-"), "ns/app", c0.Add(500*time.Millisecond), time.Second, end)
	if !errors.Is(err, ErrStatusLied) || !strings.Contains(err.Error(), "5s after the delete it showed deleting=true Ready=True reason=Available") {
		t.Errorf("message: %v", err)
	}
}

func TestNoDeleteInUse(t *testing.T) {
	op := func(sec int, what, owner, result string) Op {
		return Op{Op: what, Name: "db", Owner: owner, Result: result, At: c0.Add(time.Duration(sec) * time.Second)}
	}
	healthy := []Op{op(0, "create", "old", "ok"), op(1, "delete", "old", "ok"), op(2, "observe", "new", "notfound"), op(3, "create", "new", "ok")}
	if err := NoDeleteInUse(healthy, "db", "old", "new"); err != nil {
		t.Errorf("healthy: %v", err)
	}
	reused := []Op{op(0, "create", "old", "ok"), op(1, "observe", "new", "ok"), op(2, "delete", "old", "ok")}
	if err := NoDeleteInUse(reused, "db", "old", "new"); !errors.Is(err, ErrDeletedInUse) {
		t.Errorf("reused: %v", err)
	}
	if err := DeletionBlocked(healthy, "db"); err == nil {
		t.Error("no refused delete, yet the deletion counts as blocked")
	}
	if err := DeletionBlocked(append(healthy, op(4, "delete", "new", "failed")), "db"); err != nil {
		t.Error(err)
	}
}

// TestBlockInPlace: the premise holds when every blocked object was seen
// carrying the harness's finalizer, whether or not the deletion reached it.
func TestBlockInPlace(t *testing.T) {
	at := time.Unix(100, 0)
	obj := func(name string, finalizers ...string) oracle.Event {
		u := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": name}}}
		u.SetFinalizers(finalizers)
		return oracle.Event{At: at, Type: "MODIFIED", Key: "/" + name, Object: u}
	}
	const block = "steadystate.dev/block"
	h := oracle.NewHistory()
	h.Add(obj("a"))
	h.Add(obj("b"))
	h.Add(obj("a", block))
	if err := BlockInPlace(h, []string{"/a"}, block); err != nil {
		t.Errorf("a was held, never deleted: %v", err)
	}
	if err := BlockInPlace(h, []string{"/a", "/b"}, block); err == nil || !strings.Contains(err.Error(), "/b carries the harness's finalizer") {
		t.Errorf("b never carried the finalizer: %v", err)
	}
	if err := BlockInPlace(h, []string{"/a", "/b"}, ""); err != nil {
		t.Errorf("evidence naming no finalizer: both were recorded: %v", err)
	}
	if err := BlockInPlace(h, []string{"/c"}, ""); err == nil {
		t.Error("an object never recorded counts as blocked")
	}
}

// Exploration owes the Deleting status from the later of the delete and
// the recovery of every fault: a subject cut off cannot write it.
func TestDeletingStatusFromRecovery(t *testing.T) {
	// Deleted at 0.5s, Deleting shown from 7s: late for the delete,
	// in time for a recovery at 3s.
	e := claimEvidence("AL"+strings.Repeat("L", 12)+"DDDDDD-", 0)
	judge := Offline[catalog.FgDeletingStatus.ID]
	if err := judge(e); !errors.Is(err, ErrStatusLied) {
		t.Fatalf("no recovery: %v, want the status lied", err)
	}
	e.Facts[FactHealthyFrom.Name] = c0.Add(3 * time.Second).Format(time.RFC3339Nano)
	if err := judge(e); err != nil {
		t.Fatalf("recovered at 3s: %v, want held", err)
	}
	// A recovery before the delete changes nothing.
	e.Facts[FactHealthyFrom.Name] = c0.Format(time.RFC3339Nano)
	if err := judge(e); !errors.Is(err, ErrStatusLied) {
		t.Fatalf("recovered before the delete: %v, want the status lied", err)
	}
}

// claimEvidence is the evidence of deleting-status for claimHistory(states)
// with ns/app deleted at 0.5s from c0 and W 1s, recovered at recovered
// from c0 when that is not 0.
func claimEvidence(states string, recovered time.Duration) *evidence.Evidence {
	e := &evidence.Evidence{
		End:       c0.Add(20 * time.Second),
		Histories: map[string][]oracle.EventRecord{HistoryClaims: claimHistory(states).Records()},
		Facts:     map[string]string{FactClaim.Name: "ns/app", FactDeleted.Name: c0.Add(500 * time.Millisecond).Format(time.RFC3339Nano), FactWindow.Name: "1s"},
	}
	if recovered != 0 {
		e.Facts[FactHealthyFrom.Name] = c0.Add(recovered).Format(time.RFC3339Nano)
	}
	return e
}
