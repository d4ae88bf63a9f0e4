package judge

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

type factMap map[string]string

func (m factMap) Fact(name, value string) { m[name] = value }

// TestFactText pins how each kind of fact is written: evidence kept before
// the facts were typed (the kept findings', the testdata's) holds these
// texts, so a change here is a change of evidence.Format.
func TestFactText(t *testing.T) {
	at := time.Date(2026, 11, 30, 10, 0, 0, 123000000, time.UTC)
	for _, tc := range []struct {
		name string
		text string
		set  func(FactWriter)
	}{
		{"string", "ns/web", func(w FactWriter) { FactWorkload.Set(w, "ns/web") }},
		{"duration", "1m30s", func(w FactWriter) { FactWindow.Set(w, 90*time.Second) }},
		{"time", "2026-11-30T10:00:00.123Z", func(w FactWriter) { FactDeleted.Set(w, at) }},
		{"int", "3", func(w FactWriter) { FactFaultSteps.Set(w, 3) }},
		{"names", "source,target", func(w FactWriter) { FactClusters.Set(w, Names{"source", "target"}) }},
		{"no names", "", func(w FactWriter) { FactSteadyUnstored.Set(w, nil) }},
		{"a list as JSON", `["status.x"]`, func(w FactWriter) { FactSteadyIgnore.Set(w, []string{"status.x"}) }},
		{"a struct as JSON", `{"premise":"p","why":"w"}`, func(w FactWriter) { FactSpecNotBound.Set(w, SpecNotBound{Premise: "p", Why: "w"}) }},
		{"a bound", `{"Since":"2026-11-30T10:00:00.123Z","Within":"1s","Window":"2s","History":"h","Want":{"kind":"ready","keys":["ns/a"]}}`, func(w FactWriter) {
			FactConvergence("p").Set(w, Bound{Convergence: oracle.Convergence{Since: at, Within: time.Second, Window: 2 * time.Second}, History: "h", Want: Ready("ns/a")})
		}},
	} {
		m := factMap{}
		tc.set(m)
		if len(m) != 1 {
			t.Fatalf("%s: wrote %d facts", tc.name, len(m))
		}
		for name, got := range m {
			if got != tc.text {
				t.Errorf("%s: fact %q is %q, want %q", tc.name, name, got, tc.text)
			}
		}
	}
}

// TestFactRoundTrip reads back what Set wrote, for each kind.
func TestFactRoundTrip(t *testing.T) {
	e := &evidence.Evidence{}
	at := time.Date(2026, 11, 30, 10, 0, 0, 5, time.UTC)
	FactDeleted.Put(e, at)
	FactWindow.Put(e, 1500*time.Millisecond)
	FactClusters.Put(e, Names{"a", "b"})
	FactSteadyUnstored.Put(e, nil)
	FactSteadyQuiet.Put(e, QuietWindow{From: at, To: at.Add(time.Second), Window: "5s"})
	b := Bound{Convergence: oracle.Convergence{Since: at, Within: time.Second, Window: time.Second}, History: "h", Want: Ready("ns/a")}
	FactConvergence("p").Put(e, b)

	if got, err := FactDeleted.Get(e); err != nil || !got.Equal(at) {
		t.Errorf("deleted: %v, %v", got, err)
	}
	if got, err := FactWindow.Get(e); err != nil || got != 1500*time.Millisecond {
		t.Errorf("window: %v, %v", got, err)
	}
	if got, err := FactClusters.Get(e); err != nil || !reflect.DeepEqual(got, Names{"a", "b"}) {
		t.Errorf("clusters: %v, %v", got, err)
	}
	if got, err := FactSteadyUnstored.Get(e); err != nil || got != nil {
		t.Errorf("no names read back as %#v, %v; want nil", got, err)
	}
	if got, err := FactSteadyQuiet.Get(e); err != nil || got.Window != "5s" || !got.To.Equal(at.Add(time.Second)) {
		t.Errorf("quiet: %+v, %v", got, err)
	}
	if got, err := FactConvergence("p").Get(e); err != nil || got.History != "h" || got.Within != time.Second || got.Want.Kind != b.Want.Kind {
		t.Errorf("bound: %+v, %v", got, err)
	}
}

// TestFactMissingOrUnreadable: a fact not recorded is evidence.ErrMissing;
// one that does not parse names the fact; Lookup tells neither apart from
// absent, Has does.
func TestFactMissingOrUnreadable(t *testing.T) {
	e := &evidence.Evidence{Facts: map[string]string{FactWindow.Name: "soon", FactSteadyQuiet.Name: "{"}}
	if _, err := FactDeleted.Get(e); !errors.Is(err, evidence.ErrMissing) {
		t.Errorf("a missing fact: %v, want ErrMissing", err)
	}
	for _, err := range []error{get2(FactWindow.Get(e)), get2(FactSteadyQuiet.Get(e))} {
		if err == nil || errors.Is(err, evidence.ErrMissing) || !strings.Contains(err.Error(), "fact ") {
			t.Errorf("an unreadable fact: %v, want an error naming it", err)
		}
	}
	if v, ok := FactWindow.Lookup(e); ok || v != 0 {
		t.Errorf("Lookup of an unreadable fact said %v, %v; want the zero value, false", v, ok)
	}
	if !FactWindow.Has(e) || FactDeleted.Has(e) {
		t.Error("Has does not tell a recorded fact from a missing one")
	}
	if _, err := FactConvergence("p").Parse(`{"Within":"1s","Window":"1s"}`); err == nil {
		t.Error("a bound naming no history parsed")
	}
}

func get2[T any](_ T, err error) error { return err }
