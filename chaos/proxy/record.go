package proxy

import (
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
	Holder string    `json:"holder,omitempty"`
	Start  time.Time `json:"start"`
	End    time.Time `json:"end"`
}

// Event is one watch event the proxy delivered or dropped.
type Event struct {
	Replica string `json:"replica"`
	// WatchID is the ID of the watch request that carried it.
	WatchID uint64 `json:"watchID"`
	EventMeta
	Delivered bool `json:"delivered"`
	// Fault names the rule that dropped, held or delayed it, or "cut".
	Fault string    `json:"fault,omitempty"`
	At    time.Time `json:"at"`
}

// recorder keeps the proxy's history in memory.
type recorder struct {
	mu       sync.Mutex
	requests []Request // by start; IDs are 1-based positions
	events   []Event
}

// begin records a request as it starts and assigns its ID.
func (r *recorder) begin(req Request) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	req.ID = uint64(len(r.requests) + 1)
	r.requests = append(r.requests, req)
	return req.ID
}

// finish records how a request ended.
func (r *recorder) finish(req Request) {
	r.mu.Lock()
	r.requests[req.ID-1] = req
	r.mu.Unlock()
}

// LastRequestID is the ID of the newest request; later requests have
// larger IDs.
func (r *recorder) LastRequestID() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return uint64(len(r.requests))
}

func (r *recorder) event(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// Requests returns every request in the order they started; one still in
// flight (an open watch) has a zero End.
func (r *recorder) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.requests)
}

// Events returns the watch events in the order they were handled.
func (r *recorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// Answered reports whether a request that m selects got HTTP code.
func (r *recorder) Answered(m Match, code int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, req := range r.requests {
		if req.Code == code && m.Matches(req.RequestInfo) {
			return true
		}
	}
	return false
}
