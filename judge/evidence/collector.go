package evidence

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// Collector gathers one spec's evidence from its live sources: recorders,
// replicas' proxies, fault timelines, logs the scenario reads, and facts.
// Snapshot reads them all as of now; Freeze fixes the evidence the spec is
// judged on; WriteArtifacts keeps that (or, never frozen, a snapshot).
type Collector struct {
	spec  string
	start time.Time

	mu        sync.Mutex
	names     map[string]bool
	histories map[string]*oracle.History
	proxies   map[string]proxy.Controller
	timelines []*chaos.Timeline
	logs      map[string]func() (any, error)
	facts     map[string]string
	records   []verdict.Record
	// frozen is the evidence the spec was judged on, once it was: what
	// WriteArtifacts keeps, so the kept evidence re-judges as judged.
	frozen *Evidence
	// rebuilt are the histories the judges of its snapshots rebuilt: a
	// later snapshot's judges rebuild only the events recorded since
	// (Evidence.rebuild).
	rebuilt *rebuiltHistories
}

// NewCollector starts collecting for the spec that started at start.
func NewCollector(spec string, start time.Time) *Collector {
	return &Collector{spec: spec, start: start, names: map[string]bool{}, histories: map[string]*oracle.History{},
		proxies: map[string]proxy.Controller{}, logs: map[string]func() (any, error){}, facts: map[string]string{},
		rebuilt: &rebuiltHistories{m: map[string]rebuilt{}}}
}

// Start is the spec's start.
func (c *Collector) Start() time.Time { return c.start }

// unique is name, or name#2, name#3... when kind already has it.
func (c *Collector) unique(kind, name string) string {
	u := name
	for i := 2; c.names[kind+":"+u]; i++ {
		u = fmt.Sprintf("%s#%d", name, i)
	}
	c.names[kind+":"+u] = true
	return u
}

// AddHistory adds a recorded history and returns the name it is kept
// under (name, or name#2... when taken).
func (c *Collector) AddHistory(name string, h *oracle.History) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	name = c.unique("history", name)
	c.histories[name] = h
	return name
}

// History is the history added under name, nil if none was.
func (c *Collector) History(name string) *oracle.History {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.histories[name]
}

// AddProxy adds a replica's proxy and returns the identity it is kept
// under (identity, or identity#2... when taken).
func (c *Collector) AddProxy(identity string, p proxy.Controller) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	identity = c.unique("proxy", identity)
	c.proxies[identity] = p
	return identity
}

// AddTimeline adds a fault timeline.
func (c *Collector) AddTimeline(tl *chaos.Timeline) {
	c.mu.Lock()
	c.timelines = append(c.timelines, tl)
	c.mu.Unlock()
}

// Fact records a fact about the scenario for the judges.
func (c *Collector) Fact(name, value string) {
	c.mu.Lock()
	c.facts[name] = value
	c.mu.Unlock()
}

// KeepLog adds a log the scenario reads, and returns the name it is kept
// under (name, or name#2... when taken: a second move's mover); read runs
// at every Snapshot.
func (c *Collector) KeepLog(name string, read func() (any, error)) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	name = c.unique("log", name)
	c.logs[name] = read
	return name
}

// SetRecords keeps the spec's property records.
func (c *Collector) SetRecords(records []verdict.Record) {
	c.mu.Lock()
	c.records = records
	if c.frozen != nil {
		c.frozen.Records = slices.Clone(records)
	}
	c.mu.Unlock()
}

// Freeze takes a snapshot and keeps it as the evidence the spec is judged
// on: WriteArtifacts then writes it, not what was recorded after it, so
// re-judging the kept evidence gives the verdicts the spec gave. A later
// Freeze (a spec judged again) replaces it.
func (c *Collector) Freeze() *Evidence {
	e := c.Snapshot()
	c.mu.Lock()
	c.frozen = e
	c.mu.Unlock()
	return e
}

// Snapshot is the evidence as of now.
func (c *Collector) Snapshot() *Evidence {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := &Evidence{Format: Format, Spec: c.spec, Start: c.start, End: time.Now(),
		Histories: map[string][]oracle.EventRecord{}, Incomplete: map[string]string{}, Proxies: map[string]ProxyLog{},
		Logs: map[string]json.RawMessage{}, Facts: maps.Clone(c.facts), Records: slices.Clone(c.records), earlier: c.rebuilt}
	for name, h := range c.histories {
		e.Histories[name] = h.Records()
		if err := h.Incomplete(); err != nil {
			e.Incomplete[name] = err.Error()
		}
	}
	for id, p := range c.proxies {
		l := ProxyLog{Requests: p.Requests(), Events: p.Events()}
		if m, ok := p.(interface{ Complete() error }); ok {
			if err := m.Complete(); err != nil {
				l.Incomplete = err.Error()
			}
		}
		// A proxy that keeps its older history in a file says when it
		// could not write or read it back.
		if s, ok := p.(interface{ SpoolErr() error }); ok {
			if err := s.SpoolErr(); err != nil {
				l.Incomplete = err.Error()
			}
		}
		e.Proxies[id] = l
	}
	for _, tl := range c.timelines {
		e.Faults = append(e.Faults, tl.Injections()...)
	}
	slices.SortStableFunc(e.Faults, func(a, b chaos.Injection) int { return a.Start.Compare(b.Start) })
	for name, read := range c.logs {
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

// WriteArtifacts keeps the evidence in dir, the frozen evidence when there
// is one: evidence.json and the merged history.txt rendered from it.
func (c *Collector) WriteArtifacts(dir string) error {
	c.mu.Lock()
	e := c.frozen
	c.mu.Unlock()
	if e == nil {
		e = c.Snapshot()
	}
	if err := e.Write(dir); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, HistoryFileName))
	if err != nil {
		return err
	}
	defer f.Close()
	return e.WriteHistory(f)
}
