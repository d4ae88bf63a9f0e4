package proxy

import (
	"net/http"
	"slices"
	"sync"
	"time"
)

// Mirror is a Controller for a remote proxy whose history must outlive it,
// such as the sidecar of a pod that a fault deletes: it copies the request
// and event logs every interval and answers Requests and Events from the
// freshest copy it could read. What the proxy recorded after the last copy
// before it died is lost: at most one interval.
type Mirror struct {
	*Remote
	mu       sync.Mutex
	requests []Request
	events   []Event
	stop     chan struct{}
	done     chan struct{}
}

var _ Controller = (*Mirror)(nil)

// NewMirror starts copying r's logs every interval until Close.
func NewMirror(r *Remote, interval time.Duration) *Mirror {
	m := &Mirror{Remote: r, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(m.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			m.refresh()
			select {
			case <-m.stop:
				return
			case <-t.C:
			}
		}
	}()
	return m
}

// refresh copies both logs if the proxy answers; a proxy that is gone
// leaves the last copy in place.
func (m *Mirror) refresh() {
	var requests []Request
	var events []Event
	if m.Remote.do(http.MethodGet, "/v1/requests", nil, &requests) != nil || m.Remote.do(http.MethodGet, "/v1/events", nil, &events) != nil {
		return
	}
	m.mu.Lock()
	m.requests, m.events = requests, events
	m.mu.Unlock()
}

// Requests is the proxy's request log, as fresh as it can be read.
func (m *Mirror) Requests() []Request {
	m.refresh()
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.requests)
}

// Events is the proxy's event log, as fresh as it can be read.
func (m *Mirror) Events() []Event {
	m.refresh()
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.events)
}

// Close stops copying; the last copy stays readable.
func (m *Mirror) Close() {
	select {
	case <-m.stop:
	default:
		close(m.stop)
	}
	<-m.done
}
