package evidence

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/oracle"
	"github.com/steadystate-dev/steadystate/verdict"
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
		"garbage": "{", "no spec": `{"format":2}`, "newer": `{"format":3,"spec":"s"}`, "older": `{"format":1,"spec":"s"}`,
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
