package proxy

import (
	"fmt"
	"slices"
	"sync"
	"time"
)

// Mirror is a Controller for a remote proxy whose history must outlive it,
// such as the sidecar of a pod that a fault deletes: it copies the logs
// every interval and answers Requests and Events from the freshest copy it
// could read. Complete says whether that copy is the whole history: it is
// when the last read succeeded or the proxy was sealed before it was read;
// a copy older than the question (the proxy stopped answering first) is
// not, and evidence built on it is incomplete.
type Mirror struct {
	*Remote
	mu     sync.Mutex
	log    Log
	copied time.Time // when log was read
	err    error     // the last read's failure, nil after a success
	closed bool      // no more reads: the copy is what it was at Close
	stop   chan struct{}
	done   chan struct{}
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

// refresh copies the logs if the proxy answers; a proxy that does not
// leaves the last copy in place and the failure noted. A final copy is
// never replaced.
func (m *Mirror) refresh() {
	m.mu.Lock()
	settled := m.log.Final || m.closed
	m.mu.Unlock()
	if settled {
		return
	}
	l, err := m.Log()
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		m.err = err
		return
	}
	m.log, m.copied, m.err = l, time.Now(), nil
}

// Requests is the proxy's request log, as fresh as it can be read.
func (m *Mirror) Requests() []Request {
	m.refresh()
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.log.Requests)
}

// RequestsAfter is the requests with an ID above id, as fresh as they can
// be read.
func (m *Mirror) RequestsAfter(id uint64) []Request {
	return slices.DeleteFunc(m.Requests(), func(r Request) bool { return r.ID <= id })
}

// Events is the proxy's event log, as fresh as it can be read.
func (m *Mirror) Events() []Event {
	m.refresh()
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.log.Events)
}

// Seal seals the remote proxy and takes the final copy.
func (m *Mirror) Seal() error {
	if err := m.Remote.Seal(); err != nil {
		return err
	}
	m.refresh()
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.log.Final {
		return fmt.Errorf("sealed the proxy of %s but could not copy its final log: %v", m.Replica(), m.err)
	}
	return nil
}

// Complete is nil when the copy is the proxy's whole history as of now:
// the last read succeeded, or the copy is final.
func (m *Mirror) Complete() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.log.Final || m.err == nil {
		return nil
	}
	since := "never copied"
	if !m.copied.IsZero() {
		since = "last copied at " + m.copied.Format("15:04:05.000")
	}
	return fmt.Errorf("its proxy log was %s, then the proxy stopped answering before the log was final (%v)", since, m.err)
}

// Close takes a last copy and stops copying; the copy stays readable, and
// Complete says whether it was whole when the mirror closed.
func (m *Mirror) Close() {
	select {
	case <-m.stop:
	default:
		close(m.stop)
	}
	<-m.done
	m.refresh()
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
}
