package proxy

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fill records n requests, each finished at once except every tenth,
// which stays in flight until the end (a watch), and one event per
// request; it returns the IDs of those in flight.
func fill(r *recorder, n int) []uint64 {
	var open []uint64
	for i := range n {
		id := r.begin(Request{RequestInfo: RequestInfo{Verb: "get", Resource: "pods"}, Start: time.Unix(int64(i), 0)})
		if i%10 == 0 {
			open = append(open, id)
		} else {
			r.finish(Request{ID: id, RequestInfo: RequestInfo{Verb: "get", Resource: "pods"}, Code: 200, Start: time.Unix(int64(i), 0), End: time.Unix(int64(i), 1)})
		}
		r.event(Event{WatchID: id, EventMeta: EventMeta{Type: "ADDED", Name: "p"}, At: time.Unix(int64(i), 0)})
	}
	return open
}

// With a spool, the recorder keeps a window in memory and the whole
// history on disk: Requests, RequestsAfter and Events read it back in
// order, with nothing lost or repeated, also for requests that finished
// long after they began.
func TestSpooledRecorderKeepsTheWholeHistory(t *testing.T) {
	s, err := createSpool(filepath.Join(t.TempDir(), "log.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	const window, n = 16, 1000
	r := newRecorder(s, window)
	open := fill(r, n)
	if len(r.requests) >= 2*window || len(r.events) >= 2*window {
		t.Fatalf("memory holds %d requests and %d events, want fewer than %d each", len(r.requests), len(r.events), 2*window)
	}
	for _, id := range open[:len(open)/2] { // long watches that end now
		r.finish(Request{ID: id, Code: 200, End: time.Unix(2000, 0)})
	}
	check := func(what string, reqs []Request, from uint64) {
		t.Helper()
		if len(reqs) != n-int(from) {
			t.Fatalf("%s: %d requests, want %d", what, len(reqs), n-int(from))
		}
		for i, req := range reqs {
			if req.ID != from+uint64(i)+1 {
				t.Fatalf("%s: request %d has ID %d, want %d", what, i, req.ID, from+uint64(i)+1)
			}
		}
	}
	check("Requests", r.Requests(), 0)
	check("RequestsAfter(500)", r.RequestsAfter(500), 500)
	last := r.LastRequestID()
	check("RequestsAfter(last-3)", r.RequestsAfter(last-3), last-3)
	events := r.Events()
	if len(events) != n {
		t.Fatalf("Events: %d, want %d", len(events), n)
	}
	for i, e := range events {
		if e.WatchID != uint64(i)+1 {
			t.Fatalf("event %d is of watch %d, want %d", i, e.WatchID, i+1)
		}
	}
	inFlight := 0
	for _, req := range r.Requests() {
		if req.End.IsZero() {
			inFlight++
		}
	}
	if inFlight != len(open)-len(open)/2 {
		t.Errorf("%d requests in flight, want %d", inFlight, len(open)-len(open)/2)
	}
	// Closed with the proxy, the spool stays readable.
	if err := r.closeSpool(); err != nil {
		t.Fatal(err)
	}
	check("Requests after close", r.Requests(), 0)
	if err := r.SpoolErr(); err != nil {
		t.Fatal(err)
	}
}

// A spool that cannot be read back is an error the evidence reports, not
// a shorter history taken as whole.
func TestLostSpoolIsAnError(t *testing.T) {
	dir := t.TempDir()
	s, err := createSpool(filepath.Join(dir, "log.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	r := newRecorder(s, 4)
	fill(r, 100)
	os.Remove(s.Path())
	if got := len(r.Events()); got >= 100 {
		t.Fatalf("Events read %d from a missing spool", got)
	}
	if r.SpoolErr() == nil {
		t.Fatal("no error for a spool that could not be read back")
	}
}

// Logged's channel is closed by the next request begun and by its
// answer, and by nothing else: a waiter that took it before reading the
// log misses no request and wakes for no event.
func TestLoggedIsClosedByARequestBegunOrAnswered(t *testing.T) {
	r := newRecorder(nil, 1)
	closed := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	ch := r.Logged()
	r.event(Event{EventMeta: EventMeta{Type: "ADDED", Name: "p"}})
	if closed(ch) {
		t.Fatal("a watch event closed Logged's channel; only requests do")
	}
	id := r.begin(Request{RequestInfo: RequestInfo{Verb: "create", Resource: "pods"}})
	if !closed(ch) {
		t.Fatal("a request begun did not close Logged's channel")
	}
	ch = r.Logged()
	if closed(ch) {
		t.Fatal("a new Logged channel is closed before any change")
	}
	if other := r.Logged(); other != ch {
		t.Error("two callers with no change between them got different channels")
	}
	r.finish(Request{ID: id, RequestInfo: RequestInfo{Verb: "create", Resource: "pods"}, Code: 201})
	if !closed(ch) {
		t.Fatal("a request answered did not close Logged's channel")
	}
}
