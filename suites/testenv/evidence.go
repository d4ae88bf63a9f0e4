package testenv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL reads best unqualified.

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/evidence"
	"github.com/steadystate-dev/steadystate/suites/judge"
	"github.com/steadystate-dev/steadystate/suites/oracle"
	"github.com/steadystate-dev/steadystate/verdict"
)

// spec is the current spec's evidence: its recorded histories, replicas'
// proxies, logs and facts by unique names, the sources of its merged
// history, and its records. A failing spec writes history.txt and
// evidence.json with its artifacts.
type spec struct {
	start     time.Time // the spec's start: tells specs apart
	sources   []func() []oracle.Entry
	names     map[string]bool
	histories map[string]*oracle.History
	proxies   map[string]proxy.Controller
	logs      map[string]func() (any, error)
	facts     map[string]string
	records   []verdict.Record
}

var current *spec

// addToHistory adds a source to the current spec's merged history.
func addToHistory(source func() []oracle.Entry) {
	m := specEvidence()
	m.sources = append(m.sources, source)
}

// unique is name, or name#2, name#3... when the spec already has it.
func (m *spec) unique(name string) string {
	u := name
	for i := 2; m.names[u]; i++ {
		u = fmt.Sprintf("%s#%d", name, i)
	}
	m.names[u] = true
	return u
}

// specEvidence is the current spec's evidence, made at its first use in
// the spec.
func specEvidence() *spec {
	started := CurrentSpecReport().StartTime
	if current == nil || !current.start.Equal(started) {
		m := &spec{start: started, names: map[string]bool{}, histories: map[string]*oracle.History{},
			proxies: map[string]proxy.Controller{}, logs: map[string]func() (any, error){}, facts: map[string]string{}}
		current = m
		// Registered with the first source, so it runs after the cleanups
		// registered later (they stop recorders and proxies, whose
		// histories stay readable).
		DeferCleanup(func() {
			if !CurrentSpecReport().Failed() && !Run().KeepEvidence {
				return
			}
			var all [][]oracle.Entry
			for _, s := range m.sources {
				all = append(all, s())
			}
			var b bytes.Buffer
			oracle.WriteMerged(&b, m.start, oracle.Merge(all...))
			write("history.txt", b.Bytes())
			ev := m.snapshot()
			ev.Records = m.records
			if err := ev.Write(SpecArtifacts()); err != nil {
				fmt.Fprintf(GinkgoWriter, "write %s: %v\n", evidence.FileName, err)
			}
		})
	}
	return current
}

// snapshot is the spec's evidence as of now.
func (m *spec) snapshot() *evidence.Evidence {
	e := &evidence.Evidence{Spec: CurrentSpecReport().FullText(), Start: m.start, End: time.Now(),
		Histories: map[string][]oracle.EventRecord{}, Incomplete: map[string]string{}, Proxies: map[string]evidence.ProxyLog{},
		Logs: map[string]json.RawMessage{}, Facts: maps.Clone(m.facts)}
	for name, h := range m.histories {
		e.Histories[name] = h.Records()
		if err := h.Incomplete(); err != nil {
			e.Incomplete[name] = err.Error()
		}
	}
	for id, p := range m.proxies {
		e.Proxies[id] = evidence.ProxyLog{Requests: p.Requests(), Events: p.Events()}
	}
	for name, read := range m.logs {
		v, err := read()
		if err != nil {
			v = map[string]string{"error": err.Error()}
		}
		if raw, err := json.Marshal(v); err == nil {
			e.Logs[name] = raw
		}
	}
	return e
}

// Fact records a fact about the current spec's scenario for the judges.
func Fact(name, value string) { specEvidence().facts[name] = value }

// FactTime records a moment as a fact.
func FactTime(name string, t time.Time) { Fact(name, t.Format(time.RFC3339Nano)) }

// KeepLog adds a log the scenario reads (read when the spec is judged and
// when its evidence is written) to the current spec's evidence.
func KeepLog(name string, read func() (any, error)) { specEvidence().logs[name] = read }

// Judged is the check of a property that judge.Offline judges from
// evidence: the same function `steadystate validate` runs offline, here on
// the current spec's evidence as recorded so far.
func Judged(p verdict.Property) oracle.Check {
	j, ok := judge.Offline[p.ID]
	if !ok {
		Fail("no offline judge for property " + p.ID)
	}
	return oracle.Check{Property: p, Run: func() error { return j(specEvidence().snapshot()) }}
}

// Timeline starts the spec's fault timeline: kept as fault-timeline.json
// and merged into history.txt if the spec fails.
func Timeline() *chaos.Timeline {
	tl := chaos.NewTimeline()
	KeepOnFailure("fault-timeline", func() any { return tl.Injections() })
	addToHistory(func() []oracle.Entry { return faultEntries(tl) })
	return tl
}

// KeepProxy keeps a replica's log (read by log) and its proxy's requests
// and events with a failing spec's artifacts, and merges them into
// history.txt. Call it after registering the replica's stop: cleanups run
// last-in, first-out, so this runs first, and the proxy's history survives
// Close anyway.
func KeepProxy(identity string, log func() ([]byte, error), p proxy.Controller) {
	m := specEvidence()
	identity = m.unique("proxy:" + identity)[len("proxy:"):]
	m.proxies[identity] = p
	keepOnFailure(identity+".log", log)
	KeepOnFailure(identity+"-proxy-requests", func() any { return p.Requests() })
	KeepOnFailure(identity+"-proxy-events", func() any { return p.Events() })
	addToHistory(func() []oracle.Entry { return proxyEntries(identity, p) })
}

func faultEntries(tl *chaos.Timeline) []oracle.Entry {
	var out []oracle.Entry
	for _, inj := range tl.Injections() {
		what := inj.Fault
		if inj.Target != "" {
			what += " on " + inj.Target
		}
		out = append(out, oracle.Entry{At: inj.Start, Source: "fault", What: "inject " + what + details(inj.Detail)})
		if !inj.End.Equal(inj.Start) {
			out = append(out, oracle.Entry{At: inj.End, Source: "fault", What: "recover " + what})
		}
	}
	return out
}

func proxyEntries(identity string, p proxy.Controller) []oracle.Entry {
	var out []oracle.Entry
	for _, r := range p.Requests() {
		what := r.Verb + " " + object(r.Resource, r.Namespace, r.Name)
		if r.Name == "" && r.Namespace != "" {
			what = r.Verb + " " + r.Resource + " in " + r.Namespace
		}
		if r.Path != "" {
			what = r.Verb + " " + r.Path
		}
		if r.Fault != "" {
			what += " [" + r.Fault + "]"
		}
		if r.Verb == "watch" {
			out = append(out, oracle.Entry{At: r.Start, Source: identity, What: what + " opened"})
			if !r.End.IsZero() {
				out = append(out, oracle.Entry{At: r.End, Source: identity, What: fmt.Sprintf("%s closed (%d)", what, r.Code)})
			}
			continue
		}
		out = append(out, oracle.Entry{At: r.Start, Source: identity, What: fmt.Sprintf("%s -> %d", what, r.Code)})
	}
	for _, e := range p.Events() {
		what := fmt.Sprintf("event %s %s rv=%s", e.Type, object(strings.ToLower(e.Kind), e.Namespace, e.Name), e.ResourceVersion)
		if e.Type == "ERROR" {
			what = fmt.Sprintf("event ERROR %d %s", e.Code, e.Reason)
		}
		switch {
		case !e.Delivered:
			what += " dropped"
		case e.Fault != "":
			what += " [" + e.Fault + "]"
		}
		out = append(out, oracle.Entry{At: e.At, Source: identity, What: what})
	}
	return out
}

func object(resource, ns, name string) string {
	return strings.Trim(resource+"/"+strings.Trim(ns+"/"+name, "/"), "/")
}

func details(d map[string]string) string {
	if len(d) == 0 {
		return ""
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(d)) {
		parts = append(parts, k+"="+d[k])
	}
	return " (" + strings.Join(parts, " ") + ")"
}
