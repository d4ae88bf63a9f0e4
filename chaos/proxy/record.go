package proxy

import (
	"cmp"
	"slices"
	"sync"
	"time"
)

// Request is one request the proxy handled.
type Request struct {
	ID      uint64 `json:"id"`
	Replica string `json:"replica"`
	RequestInfo
	// Proto is the subject's HTTP version, HTTP/1.1 or HTTP/2.0.
	Proto string `json:"proto"`
	// Code is the HTTP status the client got; 0 if the connection was reset.
	Code int `json:"code"`
	// Fault names the rule that answered instead of the API server, if any.
	Fault string `json:"fault,omitempty"`
	// Holder is the Lease holder identity the API server's answer to a
	// successful Lease write names: how a replica's own election identity
	// is learned, whatever the controller chose it to be.
	Holder string `json:"holder,omitempty"`
	// Message is the API server's Status message answering a write it
	// refused (4xx, 5xx): what tells, say, a finalizer refused on an
	// object being deleted from a schema's rejection, both 422.
	Message string `json:"message,omitempty"`
	// Conflict is what the write behind an injected 409 made
	// (Rule.Conflict); nil for any other answer.
	Conflict *ConflictWrite `json:"conflict,omitempty"`
	// Object names the object the API server answered a create, update
	// or patch with (2xx): its name (a create's request path has none: a
	// generated name too) and uid. A server-side apply that makes the
	// object is a patch answered 201. A create whose answer never came
	// (Code 0) names the object its body asked for (no uid).
	Object *ObjectRef `json:"object,omitempty"`
	Start  time.Time  `json:"start"`
	End    time.Time  `json:"end"`
}

// ObjectRef is the name and uid of an object an answer carried.
type ObjectRef struct {
	Name string `json:"name"`
	UID  string `json:"uid,omitempty"`
}

// Created reports whether the request made an object: a create, or a
// patch (a server-side apply) the API server answered 201 Created.
func (r Request) Created() bool {
	return r.Code == 201 && (r.Verb == "create" || r.Verb == "patch") && r.Subresource == ""
}

// ObjectName is the name of the object the request wrote: its path's,
// or, for a create, the answer's ("" when the answer was not read).
func (r Request) ObjectName() string {
	if r.Name != "" {
		return r.Name
	}
	if r.Object != nil {
		return r.Object.Name
	}
	return ""
}

// Event is one watch event the proxy delivered or dropped.
type Event struct {
	Replica string `json:"replica"`
	// WatchID is the ID of the watch request that carried it.
	WatchID uint64 `json:"watchID"`
	EventMeta
	Delivered bool `json:"delivered"`
	// Fault names the rule that dropped, held or delayed it (an event a
	// stall held and then let go is delivered as the stall's), or "cut".
	Fault string    `json:"fault,omitempty"`
	At    time.Time `json:"at"`
}

// recorder keeps the proxy's history. Without a spool it keeps all of it
// in memory; with one (Options.Log) it keeps the requests in flight and a
// window of the newest finished requests and events, and appends older
// ones to the spool, so its memory stays bounded however long it runs.
type recorder struct {
	mu       sync.Mutex
	last     uint64             // the newest request's ID; IDs count from 1
	inflight map[uint64]Request // begun, not finished
	// requests are the finished requests in memory, by ID; events the
	// events in memory, in the order they were handled.
	requests []Request
	events   []Event
	spool    *spool
	// window is how many of each the memory keeps with a spool.
	window int
	// spooledID is the largest ID of a request in the spool: a request
	// with a larger ID is in memory.
	spooledID uint64
	err       error // the spool's first write error
	// changed is closed when a request begins or is answered, and made
	// anew by the next Logged: what a waiter for a request selects on.
	changed chan struct{}
}

func newRecorder(s *spool, window int) *recorder {
	return &recorder{inflight: map[uint64]Request{}, spool: s, window: max(window, 1)}
}

// begin records a request as it starts and assigns its ID.
func (r *recorder) begin(req Request) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last++
	req.ID = r.last
	r.inflight[req.ID] = req
	r.notify()
	return req.ID
}

// finish records how a request ended.
func (r *recorder) finish(req Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.inflight, req.ID)
	r.notify() // r.mu is held: a woken reader sees the request once it is in
	// Requests mostly finish in the order they began: insert from the end.
	i := len(r.requests)
	for i > 0 && r.requests[i-1].ID > req.ID {
		i--
	}
	r.requests = slices.Insert(r.requests, i, req)
	if r.spool != nil && len(r.requests) >= 2*r.window {
		old := r.requests[:len(r.requests)-r.window]
		r.keep(r.spool.writeRequests(old))
		r.spooledID = max(r.spooledID, slices.MaxFunc(old, func(a, b Request) int { return cmp.Compare(a.ID, b.ID) }).ID)
		r.requests = slices.Clone(r.requests[len(old):])
	}
}

func (r *recorder) event(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
	if r.spool != nil && len(r.events) >= 2*r.window {
		old := r.events[:len(r.events)-r.window]
		r.keep(r.spool.writeEvents(old))
		r.events = slices.Clone(r.events[len(old):])
	}
}

// keep notes the spool's first write error.
func (r *recorder) keep(err error) {
	if r.err == nil {
		r.err = err
	}
}

// Logged returns a channel closed once a request begins or is answered
// after the call: a caller waiting for a request reads the log, waits on
// it, and reads again, with no polling.
func (r *recorder) Logged() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.changed == nil {
		r.changed = make(chan struct{})
	}
	return r.changed
}

// notify wakes the callers of Logged; r.mu is held.
func (r *recorder) notify() {
	if r.changed != nil {
		close(r.changed)
		r.changed = nil
	}
}

// LastRequestID is the ID of the newest request; later requests have
// larger IDs.
func (r *recorder) LastRequestID() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// Requests returns every request in the order they started; one still in
// flight (an open watch) has a zero End. With a spool it reads the
// spool back: the whole history, which the window does not bound.
func (r *recorder) Requests() []Request { return r.RequestsAfter(0) }

// RequestsAfter returns the requests with an ID above id, in the order
// they started, one still in flight with a zero End: what a caller that
// polls the log has not seen yet. It reads only memory when every such
// request is there, which it is for an id from LastRequestID a moment
// ago.
func (r *recorder) RequestsAfter(id uint64) []Request {
	r.mu.Lock()
	var out []Request
	for _, req := range r.requests {
		if req.ID > id {
			out = append(out, req)
		}
	}
	for _, req := range r.inflight {
		if req.ID > id {
			out = append(out, req)
		}
	}
	size, fromSpool := int64(0), r.spool != nil && id < r.spooledID
	if fromSpool {
		size = r.flush()
	}
	r.mu.Unlock()
	if fromSpool {
		spooled, _, err := r.spool.read(size)
		r.noteErr(err)
		for _, req := range spooled {
			if req.ID > id {
				out = append(out, req)
			}
		}
	}
	slices.SortFunc(out, func(a, b Request) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// Events returns the watch events in the order they were handled; with a
// spool, read back whole.
func (r *recorder) Events() []Event {
	r.mu.Lock()
	recent := slices.Clone(r.events)
	if r.spool == nil {
		r.mu.Unlock()
		return recent
	}
	size := r.flush()
	r.mu.Unlock()
	_, spooled, err := r.spool.read(size)
	r.noteErr(err)
	return append(spooled, recent...)
}

// flush writes what the spool buffers and returns its size: a read of
// that much sees every request and event spooled so far. Called with mu
// held.
func (r *recorder) flush() int64 {
	size, err := r.spool.flush()
	r.keep(err)
	return size
}

func (r *recorder) noteErr(err error) {
	r.mu.Lock()
	r.keep(err)
	r.mu.Unlock()
}

// closeSpool flushes and closes the spool, which stays readable.
func (r *recorder) closeSpool() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.spool == nil {
		return nil
	}
	return r.spool.close()
}

// SpoolErr is the first error writing or reading the spool: the logs
// may then miss what it could not keep.
func (r *recorder) SpoolErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Answered reports whether a request that m selects got HTTP code.
func (r *recorder) Answered(m Match, code int) bool {
	return slices.ContainsFunc(r.Requests(), func(req Request) bool { return req.Code == code && m.Matches(req.RequestInfo) })
}
