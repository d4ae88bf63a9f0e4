package oracle

import (
	"encoding/json"
	"errors"
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

// History is the ordered events of one resource.
type History struct {
	mu     sync.Mutex
	events []Event
	notify chan struct{}
	// lost says why the history may miss events; empty while complete.
	lost string
}

// NewHistory makes an empty history.
func NewHistory() *History { return &History{notify: make(chan struct{})} }

// Add appends an event and wakes anyone waiting on Changed.
func (h *History) Add(e Event) {
	h.mu.Lock()
	h.events = append(h.events, e)
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

// Events returns a copy of the events.
func (h *History) Events() []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.events)
}

// Replay calls f with the state after each event, in order.
func (h *History) Replay(f func(at time.Time, s State)) {
	s := State{}
	for _, e := range h.Events() {
		if e.Type == "DELETED" {
			delete(s, e.Key)
		} else {
			s[e.Key] = e.Object
		}
		f(e.At, s)
	}
}

// StateAt is the state after every event up to and including t.
func (h *History) StateAt(t time.Time) State {
	s := State{}
	for _, e := range h.Events() {
		if e.At.After(t) {
			break
		}
		if e.Type == "DELETED" {
			delete(s, e.Key)
		} else {
			s[e.Key] = e.Object
		}
	}
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

// FromRecords rebuilds a history from its JSON form. Objects are decoded
// again the way the API machinery decodes them (whole numbers as int64),
// not as encoding/json left them (every number a float64), so that
// judging a rebuilt history reads the same fields as judging a live one.
func FromRecords(records []EventRecord) *History {
	h := NewHistory()
	for _, r := range records {
		obj := r.Object
		if raw, err := json.Marshal(r.Object); err == nil {
			var decoded map[string]any
			if utiljson.Unmarshal(raw, &decoded) == nil {
				obj = decoded
			}
		}
		h.events = append(h.events, Event{At: r.At, Type: r.Type, Key: r.Key, Object: &unstructured.Unstructured{Object: obj}})
	}
	return h
}
