package oracle

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// churn adds n events over a few keys to h: objects made, changed and
// deleted, one each millisecond from t0, each with its sequence number in
// spec.n.
func churn(h *History, n int, t0 time.Time) {
	for i := range n {
		key := fmt.Sprintf("ns/o%d", i%7)
		typ := []string{"ADDED", "MODIFIED", "MODIFIED", "DELETED"}[(i/7)%4]
		obj := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"n": int64(i)}}}
		obj.SetResourceVersion(strconv.Itoa(i + 1))
		h.Add(Event{At: t0.Add(time.Duration(i) * time.Millisecond), Type: typ, Key: key, Object: obj})
	}
}

// describe is a state as text, to compare states.
func describe(s State) string {
	out := ""
	for i := range 7 {
		k := fmt.Sprintf("ns/o%d", i)
		if o := s[k]; o != nil {
			n, _, _ := unstructured.NestedInt64(o.Object, "spec", "n")
			out += fmt.Sprintf("%s=%d ", k, n)
		}
	}
	return out
}

// A spooled history answers every read as one kept whole in memory does,
// for moments before, at and after what it spooled, while its memory
// holds fewer than twice its window of events.
func TestSpooledHistoryReadsAsWhole(t *testing.T) {
	t0 := time.Unix(100, 0)
	const n, window = 1000, 16
	whole, spooled := NewHistory(), NewHistory()
	if err := spooled.Spool(filepath.Join(t.TempDir(), "h.jsonl"), window); err != nil {
		t.Fatal(err)
	}
	churn(whole, n, t0)
	churn(spooled, n, t0)
	if len(spooled.events) >= 2*window {
		t.Fatalf("memory holds %d events, want fewer than %d", len(spooled.events), 2*window)
	}
	if got, want := len(spooled.Events()), n; got != want {
		t.Fatalf("Events: %d, want %d", got, want)
	}
	for _, ms := range []int{-1, 0, 3, 500, n - 3*window, n - window - 1, n - 2, n + 5} {
		at := t0.Add(time.Duration(ms) * time.Millisecond)
		if got, want := describe(spooled.StateAt(at)), describe(whole.StateAt(at)); got != want {
			t.Errorf("StateAt(+%dms) = %q, want %q", ms, got, want)
		}
		var got, want []string
		spooled.ReplayAfter(at, func(_ time.Time, s State) { got = append(got, describe(s)) })
		whole.Replay(func(e time.Time, s State) {
			if e.After(at) {
				want = append(want, describe(s))
			}
		})
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("ReplayAfter(+%dms): %d states, want %d (or they differ)", ms, len(got), len(want))
		}
	}
	match := func(s State) (bool, string) { return s["ns/o3"] == nil, "o3 exists" }
	for _, since := range []int{10, n - 10} {
		c := Convergence{Since: t0.Add(time.Duration(since) * time.Millisecond), Within: time.Second, Window: 5 * time.Millisecond}
		r1, e1 := c.Check(spooled, match, t0.Add(2*time.Second))
		r2, e2 := c.Check(whole, match, t0.Add(2*time.Second))
		if !r1.At.Equal(r2.At) || r1.Took != r2.Took || fmt.Sprint(e1) != fmt.Sprint(e2) {
			t.Errorf("Check since +%dms: %v %v, want %v %v", since, r1, e1, r2, e2)
		}
	}
	// Closed with its recorder, it stays readable and complete.
	if err := spooled.Close(); err != nil {
		t.Fatal(err)
	}
	if got := len(spooled.Events()); got != n {
		t.Fatalf("Events after Close: %d, want %d", got, n)
	}
	if err := spooled.Incomplete(); err != nil {
		t.Fatal(err)
	}
}

// A spool that is gone makes the history incomplete, never a shorter
// history taken as whole.
func TestLostHistorySpoolIsIncomplete(t *testing.T) {
	dir := t.TempDir()
	h := NewHistory()
	if err := h.Spool(filepath.Join(dir, "h.jsonl"), 4); err != nil {
		t.Fatal(err)
	}
	churn(h, 100, time.Unix(100, 0))
	os.Remove(h.spool.Path())
	h.Events()
	if h.Incomplete() == nil {
		t.Fatal("a history whose spool could not be read back is complete")
	}
}
