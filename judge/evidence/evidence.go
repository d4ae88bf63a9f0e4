package evidence

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/internal/renamed"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// FileName is the evidence file in a spec's artifacts folder.
const FileName = "evidence.json"

// Format is the evidence file's version; a newer one is refused, and so is
// one older than format 2, whose facts this version's judges no longer
// read (format 2 records every convergence's bound with its history and
// wanted state). Format 3 names the reconcile suite's properties and facts
// reconcile/...; format 2 named them steadystate/..., and is read with
// them renamed (renamed2).
const Format = 3

// Evidence is one spec's recorded evidence.
type Evidence struct {
	Format int    `json:"format"`
	Spec   string `json:"spec"`
	// Start is the spec's start (offsets in history.txt are from it); End
	// is when it was judged.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Histories are the recorded watch histories by name; Incomplete says
	// why a history may miss events.
	Histories  map[string][]oracle.EventRecord `json:"histories,omitempty"`
	Incomplete map[string]string               `json:"incomplete,omitempty"`
	// Proxies are the replicas' proxy logs by identity.
	Proxies map[string]ProxyLog `json:"proxies,omitempty"`
	// Faults are the faults injected, in order.
	Faults []chaos.Injection `json:"faults,omitempty"`
	// Logs are other logs the scenario read, by name.
	Logs map[string]json.RawMessage `json:"logs,omitempty"`
	// Facts are what the judges need to know about the scenario.
	Facts   map[string]string `json:"facts,omitempty"`
	Records []verdict.Record  `json:"records,omitempty"`

	// rebuilt are the histories History rebuilt, for the next judge;
	// a copy of e made after the first shares them.
	rebuilt *rebuiltHistories
	// earlier, in a Collector's snapshot, are the histories the
	// collector's earlier snapshots rebuilt, which History extends (see
	// rebuild); nil in evidence read from a file or made otherwise.
	earlier *rebuiltHistories
}

// rebuiltHistories are an evidence's rebuilt histories by name.
type rebuiltHistories struct {
	mu sync.Mutex
	m  map[string]rebuilt
}

// rebuiltInit guards the first History of any evidence, which makes its
// rebuiltHistories.
var rebuiltInit sync.Mutex

// rebuilt is a history rebuilt from records, the slice it was rebuilt
// from.
type rebuilt struct {
	from []oracle.EventRecord
	h    *oracle.History
}

// same reports whether a and b are one slice: the same first element and
// length (a history replaced or cut since, as a test does to derive a
// violation, is rebuilt again).
func same(a, b []oracle.EventRecord) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// samePrefix reports whether a and b, of one length, hold the same
// records: the same times, types and keys, and the same objects (the
// same maps, not equal ones). Two snapshots of one live history share
// their objects; records read back from a spool or a file, or replaced
// by a test, do not.
func samePrefix(a, b []oracle.EventRecord) bool {
	for i := range a {
		x, y := a[i], b[i]
		if !x.At.Equal(y.At) || x.Type != y.Type || x.Key != y.Key || reflect.ValueOf(x.Object).UnsafePointer() != reflect.ValueOf(y.Object).UnsafePointer() {
			return false
		}
	}
	return true
}

// ProxyLog is one replica's proxy history.
type ProxyLog struct {
	Requests []proxy.Request `json:"requests"`
	Events   []proxy.Event   `json:"events"`
	// Incomplete says why the log may miss the replica's last requests (a
	// mirrored proxy that stopped answering before its log was final).
	Incomplete string `json:"incomplete,omitempty"`
}

// ErrMissing is evidence a judge needs that the file does not have.
var ErrMissing = errors.New("missing from the evidence")

// History is the named history, rebuilt. It is rebuilt once and shared:
// every judge of e reads the same history, and none may change it or
// its objects (a judge that needs to, copies what it changes, as it
// must with a live history's objects). Rebuilding it for each of a
// judgement's fifty judges took a fifth of an exploration's suite CPU.
// A history whose records were replaced or cut since is rebuilt again; a
// record changed in place is not seen: replace the slice first
// (slices.Clone), as the tests that derive a violation do. A Collector's
// snapshot holds the live history's objects, which nothing may change:
// derive a violation from it by replacing objects, not changing them.
func (e *Evidence) History(name string) (*oracle.History, error) {
	recs, ok := e.Histories[name]
	if !ok {
		return nil, fmt.Errorf("history %q: %w", name, ErrMissing)
	}
	rebuiltInit.Lock()
	if e.rebuilt == nil {
		e.rebuilt = &rebuiltHistories{m: map[string]rebuilt{}}
	}
	c := e.rebuilt
	rebuiltInit.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.m[name]; ok && same(r.from, recs) {
		return r.h, nil
	}
	h := e.rebuild(name, recs)
	c.m[name] = rebuilt{from: recs, h: h}
	return h, nil
}

// rebuild rebuilds the named history from recs. In a Collector's
// snapshot, whose records begin with the very records (the same
// objects) an earlier snapshot's judges rebuilt, only the events after
// them are copied: a schedule snapshots its evidence many times (the
// deletion's wait, the end state, the final judging), and rebuilding
// each anew took 4% of a shared hunt's suite CPU. Live records are
// never changed in place, so the same objects hold the same content;
// evidence a test derives, by changing records' objects in place, has no
// earlier snapshots and is rebuilt whole.
func (e *Evidence) rebuild(name string, recs []oracle.EventRecord) *oracle.History {
	p := e.earlier
	if p == nil {
		return oracle.FromRecords(recs)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var h *oracle.History
	if r, ok := p.m[name]; ok && len(r.from) > 0 && len(r.from) <= len(recs) && samePrefix(r.from, recs[:len(r.from)]) {
		h = oracle.ExtendRecords(r.h, recs[len(r.from):])
	} else {
		h = oracle.FromRecords(recs)
	}
	p.m[name] = rebuilt{from: recs, h: h}
	return h
}

// Fact is a named fact's text, as the run recorded it; judge.Fact reads
// it as its Go type.
func (e *Evidence) Fact(name string) (string, error) {
	v, ok := e.Facts[name]
	if !ok {
		return "", fmt.Errorf("fact %q: %w", name, ErrMissing)
	}
	return v, nil
}

// Log decodes the named log into v.
func (e *Evidence) Log(name string, v any) error {
	raw, ok := e.Logs[name]
	if !ok {
		return fmt.Errorf("log %q: %w", name, ErrMissing)
	}
	return json.Unmarshal(raw, v)
}

// Write writes the evidence as dir/evidence.json.
func (e *Evidence) Write(dir string) error {
	e.Format = Format
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, FileName), data, 0o644)
}

// Read reads one evidence file, refusing one that does not parse or comes
// from a newer format.
func Read(path string) (*Evidence, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var e Evidence
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("%s is not steadystate evidence: %w", path, err)
	}
	switch {
	case e.Format == 0 || e.Spec == "":
		return nil, fmt.Errorf("%s is not steadystate evidence: no format or spec", path)
	case e.Format > Format:
		return nil, fmt.Errorf("%s has evidence format %d; this steadystate reads up to %d: use a newer steadystate", path, e.Format, Format)
	case e.Format == 2:
		e.renamed2()
	case e.Format < Format:
		return nil, fmt.Errorf("%s has evidence format %d, from an older steadystate; this one reads formats 2 and %d: validate it with the steadystate that wrote it, or run the spec again", path, e.Format, Format)
	}
	return &e, nil
}

// renamed2 reads format 2's names as format 3's: the reconcile suite's
// facts, named after its former name (steadystate/end, and
// converge/steadystate/settles for a property's bound), under its
// current one. Its records' property ids are read so already
// (verdict.Record's UnmarshalJSON).
func (e *Evidence) renamed2() {
	facts := make(map[string]string, len(e.Facts))
	for name, v := range e.Facts {
		prefix, rest, nested := strings.Cut(name, "/")
		if nested && prefix != renamed.FormerSuite {
			name = prefix + "/" + renamed.CurrentID(rest)
		} else {
			name = renamed.CurrentID(name)
		}
		facts[name] = v
	}
	e.Facts = facts
	e.Format = Format
}

// Find lists the evidence files below dir.
func Find(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == FileName {
			out = append(out, path)
		}
		return nil
	})
	return out, err
}
