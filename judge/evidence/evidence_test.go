package evidence

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

func pod(name, rv string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetNamespace("ns")
	u.SetName(name)
	u.SetResourceVersion(rv)
	if err := unstructured.SetNestedField(u.Object, int64(3), "spec", "replicas"); err != nil {
		panic(err)
	}
	return u
}

func TestCollectorKeepsWhatAJudgeReadsBack(t *testing.T) {
	start := time.Now()
	c := NewCollector("a spec", start)
	h := oracle.NewHistory()
	h.Add(oracle.Event{At: start.Add(10 * time.Millisecond), Type: "ADDED", Key: "ns/a", Object: pod("a", "5")})
	if got := c.AddHistory("pods", h); got != "pods" {
		t.Errorf("first name = %q", got)
	}
	if got := c.AddHistory("pods", oracle.NewHistory()); got != "pods#2" {
		t.Errorf("a taken name became %q, want pods#2", got)
	}
	tl := chaos.NewTimeline()
	tl.Add(chaos.Injection{Fault: "watch-stall", Target: "w-0", Start: start.Add(20 * time.Millisecond), End: start.Add(30 * time.Millisecond)})
	c.AddTimeline(tl)
	c.Fact("workload", "ns/web")
	c.KeepLog("external", func() (any, error) { return []string{"op"}, nil })
	if got := c.KeepLog("mover", func() (any, error) { return nil, nil }); got != "mover" {
		t.Errorf("first log name = %q", got)
	}
	if got := c.KeepLog("mover", func() (any, error) { return nil, nil }); got != "mover#2" {
		t.Errorf("a second mover's log became %q, want mover#2: it must not replace the first", got)
	}
	c.SetRecords([]verdict.Record{{Property: verdict.Property{ID: "s/p", Stage: verdict.Invariant}, Outcome: verdict.Held}})

	dir := t.TempDir()
	if err := c.WriteArtifacts(dir); err != nil {
		t.Fatal(err)
	}
	e, err := Read(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	back, err := e.History("pods")
	if err != nil {
		t.Fatal(err)
	}
	if n, _, _ := unstructured.NestedInt64(back.Events()[0].Object.Object, "spec", "replicas"); n != 3 {
		t.Errorf("spec.replicas read back as %v: whole numbers must stay int64", back.Events()[0].Object.Object["spec"])
	}
	var ops []string
	if f, _ := e.Fact("workload"); f != "ns/web" || e.Log("external", &ops) != nil || !reflect.DeepEqual(ops, []string{"op"}) || len(e.Records) != 1 || len(e.Faults) != 1 {
		t.Errorf("read back %+v", e)
	}
	if _, err := e.Fact("nope"); !errors.Is(err, ErrMissing) {
		t.Errorf("a missing fact: %v", err)
	}
	history, err := os.ReadFile(filepath.Join(dir, HistoryFileName))
	if err != nil {
		t.Fatal(err)
	}
	want := "   +0.010s  pods   ADDED ns/a rv=5\n   +0.020s  fault  inject watch-stall on w-0\n   +0.030s  fault  recover watch-stall on w-0\n"
	if string(history) != want {
		t.Errorf("history.txt:\n%s\nwant:\n%s", history, want)
	}
}

func TestReadRefusesWhatIsNotEvidence(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"garbage": "{", "no spec": `{"format":2}`, "newer": `{"format":4,"spec":"s"}`, "older": `{"format":1,"spec":"s"}`,
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".json")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, want an error naming the file", name, err)
		}
	}
}

// Evidence of format 2 names the reconcile suite's properties and facts
// after its former name, steadystate: it reads as format 3, every record
// and fact under the current name, and nothing else renamed.
func TestFormat2ReadsUnderCurrentNames(t *testing.T) {
	path := filepath.Join("..", "testdata", "steadystate-endpointslice-restart.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"format":2`) || !strings.Contains(string(raw), `"steadystate/end"`) {
		t.Fatalf("%s is no longer format 2 evidence with the former names", path)
	}
	e, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if e.Format != Format {
		t.Errorf("read as format %d", e.Format)
	}
	if _, ok := e.Facts["reconcile/end"]; !ok {
		t.Error("no fact reconcile/end")
	}
	for name := range e.Facts {
		if strings.Contains(name, "steadystate/") {
			t.Errorf("fact %q kept its former name", name)
		}
	}
	for _, r := range e.Records {
		if !strings.HasPrefix(r.ID, "reconcile/") && !strings.HasPrefix(r.ID, "evidence/") {
			t.Errorf("record %q", r.ID)
		}
	}
	if len(e.Records) == 0 {
		t.Error("no records")
	}
	// A property's convergence bound is a fact named after its id.
	small := filepath.Join(t.TempDir(), "evidence.json")
	if err := os.WriteFile(small, []byte(`{"format":2,"spec":"s","facts":{"converge/steadystate/settles":"{}","converge/lostevents/healthy-before-fault":"{}","window":"5s"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if e, err = Read(small); err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(maps.Keys(e.Facts)); !slices.Equal(got, []string{"converge/lostevents/healthy-before-fault", "converge/reconcile/settles", "window"}) {
		t.Errorf("facts read as %v", got)
	}
}

// A later snapshot of one collector rebuilds only the events recorded
// since the last rebuild, and gives what a rebuild from scratch gives; a
// snapshot whose records begin otherwise (a test's replaced record) is
// rebuilt whole.
func TestSnapshotsRebuildOnlyTheNewEvents(t *testing.T) {
	start := time.Now()
	c := NewCollector("a spec", start)
	h := oracle.NewHistory()
	h.Add(oracle.Event{At: start.Add(time.Millisecond), Type: "ADDED", Key: "ns/a", Object: pod("a", "5")})
	c.AddHistory("pods", h)
	first, err := c.Snapshot().History("pods")
	if err != nil {
		t.Fatal(err)
	}
	h.Add(oracle.Event{At: start.Add(2 * time.Millisecond), Type: "ADDED", Key: "ns/b", Object: pod("b", "6")})
	later := c.Snapshot()
	second, err := later.History("pods")
	if err != nil {
		t.Fatal(err)
	}
	got, want := second.Records(), oracle.FromRecords(later.Histories["pods"]).Records()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("extended history %v, rebuilt from scratch %v", got, want)
	}
	if a, b := first.Events()[0].Object, second.Events()[0].Object; a != b {
		t.Error("the second snapshot copied again the event the first had rebuilt")
	}
	if n := len(first.Events()); n != 1 {
		t.Errorf("the first rebuilt history has %d events after the second was built, want 1: it must be left as it is", n)
	}

	// A derived violation: the first record replaced.
	replaced := c.Snapshot()
	replaced.Histories = maps.Clone(replaced.Histories)
	replaced.Histories["pods"] = slices.Clone(replaced.Histories["pods"])
	replaced.Histories["pods"][0].Object = pod("a", "7").Object
	third, err := replaced.History("pods")
	if err != nil {
		t.Fatal(err)
	}
	if rv := third.Events()[0].Object.GetResourceVersion(); rv != "7" {
		t.Errorf("a replaced first record rebuilt as resourceVersion %q, want 7", rv)
	}
}
