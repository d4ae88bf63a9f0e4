package oracle

import (
	"encoding/json"
	"errors"
	"maps"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// Event is one change a recorder saw.
type Event struct {
	At   time.Time
	Type string // ADDED, MODIFIED, DELETED
	// Key is namespace/name.
	Key    string
	Object *unstructured.Unstructured
}

// Revision is the event's resource version as a number: the store's
// revision of the change. Events of one cluster's resources, recorded by
// different watches, order exactly by it (arrival times may interleave).
func (e Event) Revision() int64 {
	if e.Object == nil {
		return 0
	}
	n, _ := strconv.ParseInt(e.Object.GetResourceVersion(), 10, 64)
	return n
}

// State maps namespace/name to the object as last seen.
type State map[string]*unstructured.Unstructured

// History is the ordered events of one resource. It keeps them in
// memory, or, once spooled (Spool), a window of the newest in memory and
// the older ones in a file, so that its memory stays bounded however
// many events it records; reads stream the file back.
type History struct {
	mu     sync.Mutex
	events []Event
	notify chan struct{}
	// lost says why the history may miss events; empty while complete.
	lost  string
	spool *spool
}

// NewHistory makes an empty history.
func NewHistory() *History { return &History{notify: make(chan struct{})} }

// Spool makes h keep only its newest events in memory (window of them;
// DefaultWindow when window <= 0) and append older ones to a new file at
// path, which stays readable after Close. Call it before the first Add.
func (h *History) Spool(path string, window int) error {
	s, err := newSpool(path, window)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.events) > 0 || h.spool != nil {
		s.Close()
		return errors.New("history spool: set before the first event")
	}
	h.spool = s
	return nil
}

// Close flushes and closes a spooled history's file; it stays readable.
func (h *History) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.spool == nil {
		return nil
	}
	return h.spool.Close()
}

// Add appends an event and wakes anyone waiting on Changed.
func (h *History) Add(e Event) {
	h.mu.Lock()
	h.events = append(h.events, e)
	if s := h.spool; s != nil && len(h.events) >= 2*s.window {
		old := h.events[:len(h.events)-s.window]
		if err := s.write(old); err != nil && h.lost == "" {
			h.lost = "its spool could not be written: " + err.Error()
		}
		h.events = slices.Clone(h.events[len(old):])
	}
	close(h.notify)
	h.notify = make(chan struct{})
	h.mu.Unlock()
}

// lose marks the history incomplete and wakes waiters.
func (h *History) lose(why string) {
	h.mu.Lock()
	if h.lost == "" {
		h.lost = why
	}
	close(h.notify)
	h.notify = make(chan struct{})
	h.mu.Unlock()
}

// Incomplete says why the history may have missed events, or returns nil
// while it is complete.
func (h *History) Incomplete() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.lost == "" {
		return nil
	}
	return errors.New(h.lost)
}

// Changed is closed at the next Add.
func (h *History) Changed() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.notify
}

// snapshot is what a read needs at one moment: the events in memory, and
// with a spool its size then (every spooled event is in those bytes) and
// the state after the spooled events, from baseAt on.
type snapshot struct {
	recent []Event
	spool  *spool
	size   int64
	base   State
	baseAt time.Time
}

func (h *History) snapshot() snapshot {
	h.mu.Lock()
	defer h.mu.Unlock()
	sn := snapshot{recent: slices.Clone(h.events)}
	if s := h.spool; s != nil && s.count > 0 {
		size, err := s.Flush()
		if err != nil && h.lost == "" {
			h.lost = "its spool could not be written: " + err.Error()
		}
		sn.spool, sn.size, sn.base, sn.baseAt = s, size, maps.Clone(s.base), s.baseAt
	}
	return sn
}

// each calls f with every event in order until f returns false: the
// spooled ones read back, then those in memory.
func (h *History) each(sn snapshot, f func(Event) bool) {
	more := true
	if sn.spool != nil {
		err := sn.spool.read(sn.size, func(e Event) bool {
			more = f(e)
			return more
		})
		if err != nil {
			h.lose("its spool could not be read back: " + err.Error())
		}
	}
	for _, e := range sn.recent {
		if !more || !f(e) {
			return
		}
	}
}

// Events returns a copy of the events, read back whole from a spool.
func (h *History) Events() []Event {
	var out []Event
	h.each(h.snapshot(), func(e Event) bool {
		out = append(out, e)
		return true
	})
	return out
}

// Replay calls f with the state after each event, in order.
func (h *History) Replay(f func(at time.Time, s State)) {
	s := State{}
	h.each(h.snapshot(), func(e Event) bool {
		apply(s, e)
		f(e.At, s)
		return true
	})
}

// ReplayAfter calls f with the state after each event later than since,
// in order, starting from StateAt(since); it reads a spool back only when
// since is older than the newest spooled event.
func (h *History) ReplayAfter(since time.Time, f func(at time.Time, s State)) {
	sn := h.snapshot()
	if sn.spool != nil && !since.Before(sn.baseAt) {
		s := sn.base
		for _, e := range sn.recent {
			apply(s, e)
			if e.At.After(since) {
				f(e.At, s)
			}
		}
		return
	}
	s := State{}
	h.each(sn, func(e Event) bool {
		apply(s, e)
		if e.At.After(since) {
			f(e.At, s)
		}
		return true
	})
}

// StateAt is the state after every event up to and including t.
func (h *History) StateAt(t time.Time) State {
	sn := h.snapshot()
	if sn.spool != nil && !t.Before(sn.baseAt) {
		s := sn.base
		for _, e := range sn.recent {
			if e.At.After(t) {
				break
			}
			apply(s, e)
		}
		return s
	}
	s := State{}
	h.each(sn, func(e Event) bool {
		if e.At.After(t) {
			return false
		}
		apply(s, e)
		return true
	})
	return s
}

// EventRecord is the JSON form of one event, for artifacts.
type EventRecord struct {
	At     time.Time      `json:"at"`
	Type   string         `json:"type"`
	Key    string         `json:"key"`
	Object map[string]any `json:"object"`
}

// Records returns the events in their JSON form.
func (h *History) Records() []EventRecord {
	events := h.Events()
	out := make([]EventRecord, len(events))
	for i, e := range events {
		out[i] = EventRecord{At: e.At, Type: e.Type, Key: e.Key}
		if e.Object != nil {
			out[i].Object = e.Object.Object
		}
	}
	return out
}

// FromRecords rebuilds a history from its JSON form. Objects are copied
// with their numbers as the API machinery decodes them (whole numbers as
// int64, apiNumbers), not as encoding/json left them (every number a
// float64), so that judging a rebuilt history reads the same fields as
// judging a live one. Each call copies: the records' objects may be a
// live history's, which no reader of the rebuilt one may reach.
func FromRecords(records []EventRecord) *History {
	h := NewHistory()
	for _, r := range records {
		obj, _ := apiNumbers(r.Object).(map[string]any)
		h.events = append(h.events, Event{At: r.At, Type: r.Type, Key: r.Key, Object: &unstructured.Unstructured{Object: obj}})
	}
	return h
}

// ExtendRecords is h, a history FromRecords rebuilt from some records,
// followed by the events of records, the ones recorded after those:
// what FromRecords rebuilds from them all, without copying again the
// objects h has. h is left as it is; the two share its events' objects,
// which no reader changes.
func ExtendRecords(h *History, records []EventRecord) *History {
	out := FromRecords(records)
	h.mu.Lock()
	out.events = append(slices.Clone(h.events), out.events...)
	h.mu.Unlock()
	return out
}

// apiNumbers is a deep copy of a JSON value with its numbers as
// k8s.io/apimachinery/pkg/util/json decodes the value's encoding: a whole
// number in int64's range an int64, any other a float64. It is that
// round trip (encode, then decode) without the text in between.
func apiNumbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = apiNumbers(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = apiNumbers(x)
		}
		return out
	case float64:
		// encoding/json writes a float64 as its shortest decimal,
		// which decodes as an int64 when it is whole and fits one:
		// exactly the value below 2^53, its text's value above.
		if v != math.Trunc(v) {
			return v
		}
		if math.Abs(v) < 1<<53 {
			return int64(v)
		}
		if n, err := strconv.ParseInt(strconv.FormatFloat(v, 'f', -1, 64), 10, 64); err == nil {
			return n
		}
		return v
	case nil, bool, string, int64:
		return v
	}
	// Anything else (a typed map or slice, another kind of number) takes
	// the round trip itself.
	raw, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if utiljson.Unmarshal(raw, &out) != nil {
		return v
	}
	return out
}
