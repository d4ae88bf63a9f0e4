package oracle

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/judge/verdict"
)

var t0 = time.Unix(1000, 0)

// replicas builds a history of one object's status.replicas at offsets.
func replicas(points ...any) *History {
	h := NewHistory()
	for i := 0; i < len(points); i += 2 {
		obj := &unstructured.Unstructured{Object: map[string]any{}}
		if err := unstructured.SetNestedField(obj.Object, int64(points[i+1].(int)), "status", "replicas"); err != nil {
			panic(err)
		}
		var at time.Duration
		switch v := points[i].(type) {
		case time.Duration:
			at = v
		case int: // an untyped 0
			at = time.Duration(v)
		}
		h.Add(Event{At: t0.Add(at), Type: "MODIFIED", Key: "ns/w", Object: obj})
	}
	return h
}

func want(n int64) Match {
	return func(s State) (bool, string) {
		got, _, _ := unstructured.NestedInt64(s["ns/w"].Object, "status", "replicas")
		return got == n, fmt.Sprintf("status.replicas=%d, want %d", got, n)
	}
}

func TestConvergence(t *testing.T) {
	c := Convergence{Since: t0.Add(time.Second), Within: 5 * time.Second, Window: 2 * time.Second}
	s := time.Second
	cases := []struct {
		name    string
		h       *History
		now     time.Duration
		took    time.Duration
		wantErr string
	}{
		{"converges and holds", replicas(0, 2, 3*s, 3), 10 * s, 2 * s, ""},
		{"already matching at Since", replicas(0, 3), 4 * s, 0, ""},
		{"flaps, then holds", replicas(0, 2, 2*s, 3, 3*s, 2, 4*s, 3), 10 * s, 3 * s, ""},
		{"never matches", replicas(0, 2), 10 * s, 0, "still not matching 9s after the last change (T=5s): status.replicas=2, want 3"},
		{"too slow", replicas(0, 2, 8*s, 3), 12 * s, 7 * s, "converged only after 7s"},
		{"window not yet complete", replicas(0, 2, 3*s, 3), 4 * s, 0, "matching for only 1s of W=2s (last mismatch: status.replicas=2, want 3)"},
		{"matching from Since, window not yet complete", replicas(0, 3), 2 * s, 0, "matching for only 1s of W=2s (last mismatch: )"},
		// Judged at now after the history went on: what came later is
		// not part of the verdict (it read "matching for only -2s").
		{"matches only after now", replicas(0, 2, 9*s, 3), 7 * s, 0, "still not matching 6s after the last change"},
	}
	// A wait that starts later than the last change says from what it
	// counted, in place of the last change and T.
	later := c
	later.From = "the watches came back, with 5s of T=6s left"
	for _, tc := range []struct {
		name, wantErr string
		h             *History
		now           time.Duration
	}{
		{"never matches", "still not matching 9s after the watches came back, with 5s of T=6s left: status.replicas=2, want 3", replicas(0, 2), 10 * s},
		{"too slow", "converged only 7s after the watches came back, with 5s of T=6s left", replicas(0, 2, 8*s, 3), 12 * s},
	} {
		if _, err := later.Check(tc.h, want(3), t0.Add(tc.now)); !errors.Is(err, ErrNotConverged) || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s, counted from a later start: %v, want ErrNotConverged with %q", tc.name, err, tc.wantErr)
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := c.Check(tc.h, want(3), t0.Add(tc.now))
			if tc.wantErr == "" {
				if err != nil || r.Took != tc.took {
					t.Fatalf("Check = %+v, %v; want took %s", r, err, tc.took)
				}
				return
			}
			if !errors.Is(err, ErrNotConverged) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Check error = %v, want ErrNotConverged with %q", err, tc.wantErr)
			}
		})
	}
}

func TestValidateEvaluatesEveryStage(t *testing.T) {
	errTwoWriters := errors.New("at most one replica writes at any time")
	prop := func(id string, stage verdict.Stage) verdict.Property {
		return verdict.Property{ID: "s/" + id, Stage: stage, Sentence: id}
	}
	ran := map[string]bool{}
	check := func(p verdict.Property, err error) Check {
		return Check{Property: p, Run: func() error { ran[p.ID] = true; return err }}
	}
	writers, replicas, fault := prop("one-writer", verdict.Invariant), prop("replicas", verdict.Convergence), prop("fault", verdict.Assumption)
	broke := t0.Add(1500 * time.Millisecond)
	recs := Validate(t0,
		check(writers, BrokeAt(broke, errTwoWriters)),
		check(replicas, ErrNotConverged),
		check(fault, nil),
	)
	if len(recs) != 3 || recs[0].ID != fault.ID || recs[1].ID != replicas.ID || recs[2].ID != writers.ID {
		t.Fatalf("records not in stage order: %+v", recs)
	}
	if !ran[writers.ID] || recs[2].Outcome != verdict.Broken || recs[2].At != "+1.500s" {
		t.Fatalf("a broken convergence must not hide a broken invariant: %+v", recs[2])
	}
	if got := verdict.BrokenIDs(recs); len(got) != 2 {
		t.Fatalf("broken = %v, want both", got)
	}

	ran = map[string]bool{}
	recs = Validate(t0, check(fault, errors.New("no 410 recorded")), check(replicas, nil))
	if ran[replicas.ID] || recs[1].Outcome != verdict.NotEvaluated || !strings.Contains(recs[1].Reason, "s/fault did not hold") {
		t.Fatalf("after a failed assumption nothing else may run: %+v", recs)
	}
	if a, ok := verdict.FailedAssumption(recs); !ok || a.Reason != "no 410 recorded" {
		t.Fatalf("failed assumption = %+v, %v", a, ok)
	}
	fig := Figures{}
	recs = Validate(t0, Check{Property: replicas, Figures: fig, Run: func() error { fig["took"] = "2s"; return nil }})
	if recs[0].Outcome != verdict.Held || recs[0].Figures["took"] != "2s" {
		t.Fatalf("record = %+v", recs[0])
	}
}

func TestMergeOrdersSourcesByTime(t *testing.T) {
	base := time.Now()
	at := func(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
	merged := Merge(
		[]Entry{{At: at(10), Source: "pods", What: "ADDED a"}, {At: at(30), Source: "pods", What: "DELETED a"}},
		[]Entry{{At: at(20), Source: "fault", What: "stall pods: start"}, {At: at(30), Source: "fault", What: "stall pods: end"}},
	)
	var b strings.Builder
	if err := WriteMerged(&b, base, merged); err != nil {
		t.Fatal(err)
	}
	want := "   +0.010s  pods   ADDED a\n   +0.020s  fault  stall pods: start\n   +0.030s  pods   DELETED a\n   +0.030s  fault  stall pods: end\n"
	if b.String() != want {
		t.Fatalf("merged:\n%s\nwant:\n%s", b.String(), want)
	}
}

// A joined source holds every history's objects, the others' under their
// history's name, and replays their events in the order they arrived;
// its convergence waits on any of them.
func TestJoin(t *testing.T) {
	start := time.Now()
	obj := func(name string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": name, "namespace": "ns"}}}
	}
	w, pods := NewHistory(), NewHistory()
	w.Add(Event{At: start, Type: "ADDED", Key: "ns/web", Object: obj("web")})
	pods.Add(Event{At: start.Add(time.Millisecond), Type: "ADDED", Key: "ns/web-a", Object: obj("web-a")})
	pods.Add(Event{At: start.Add(3 * time.Millisecond), Type: "DELETED", Key: "ns/web-a", Object: obj("web-a")})
	w.Add(Event{At: start.Add(2 * time.Millisecond), Type: "MODIFIED", Key: "ns/web", Object: obj("web")})
	j := Join(w, map[string]*History{"pods": pods})
	if s := j.StateAt(start.Add(2 * time.Millisecond)); len(s) != 2 || s["ns/web"] == nil || s[JoinedKey("pods", "ns/web-a")] == nil {
		t.Errorf("state at +2ms: %v", s)
	}
	var order []string
	j.ReplayAfter(start, func(at time.Time, s State) { order = append(order, fmt.Sprintf("%s:%d", at.Sub(start), len(s))) })
	if got := strings.Join(order, " "); got != "1ms:2 2ms:2 3ms:1" {
		t.Errorf("replay after the start: %s", got)
	}
	gone := func(s State) (bool, string) { return s[JoinedKey("pods", "ns/web-a")] == nil, "the pod lives" }
	c := Convergence{Since: start.Add(time.Millisecond), Within: time.Second, Window: time.Millisecond}
	if r, err := c.Check(j, gone, start.Add(5*time.Millisecond)); err != nil || r.Took != 2*time.Millisecond {
		t.Errorf("the pod's deletion through the join: %v, %v", r, err)
	}
	if n := len(j.Changes()); n != 2 {
		t.Errorf("a join of two histories has %d change channels", n)
	}

	// Waiting on the join wakes at a change of either history.
	now := time.Now()
	pods.Add(Event{At: now, Type: "ADDED", Key: "ns/web-b", Object: obj("web-b")})
	// The change comes while Wait waits.
	time.AfterFunc(20*time.Millisecond, func() {
		pods.Add(Event{At: time.Now(), Type: "DELETED", Key: "ns/web-b", Object: obj("web-b")})
	})
	goneB := func(s State) (bool, string) { return s[JoinedKey("pods", "ns/web-b")] == nil, "the pod lives" }
	if _, err := (Convergence{Since: now, Within: 10 * time.Second, Window: 10 * time.Millisecond}).Wait(context.Background(), j, goneB); err != nil || time.Since(now) > 5*time.Second {
		t.Errorf("waiting on the join: %v after %s", err, time.Since(now))
	}
}
