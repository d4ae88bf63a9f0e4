package chaos

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
)

// loggingProxy is a replica's proxy whose request log the test writes;
// Logged is closed at each write.
type loggingProxy struct {
	proxy.Controller
	mu      sync.Mutex
	reqs    []proxy.Request
	changed chan struct{}
	// polled, when set, is sent each read past the first request.
	polled chan struct{}
}

func (p *loggingProxy) Requests() []proxy.Request { return p.RequestsAfter(0) }

func (p *loggingProxy) RequestsAfter(id uint64) []proxy.Request {
	if id > 0 && p.polled != nil {
		select {
		case p.polled <- struct{}{}:
		default:
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.DeleteFunc(slices.Clone(p.reqs), func(r proxy.Request) bool { return r.ID <= id })
}

func (p *loggingProxy) Logged() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.changed == nil {
		p.changed = make(chan struct{})
	}
	return p.changed
}

// log logs a request of verb that began at start.
func (p *loggingProxy) log(verb string, start time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reqs = append(p.reqs, proxy.Request{ID: uint64(len(p.reqs) + 1), RequestInfo: proxy.RequestInfo{Verb: verb, Resource: "deployments"}, Start: start})
	if p.changed != nil {
		close(p.changed)
		p.changed = nil
	}
}

func isUpdate(r proxy.Request) bool { return r.Verb == "update" }

func TestAwaitRequestSeesARequestLoggedWhileItWaits(t *testing.T) {
	p := &loggingProxy{polled: make(chan struct{}, 1)}
	since := time.Now()
	p.log("update", since.Add(-time.Second)) // before since: not the one
	go func() {
		// Once AwaitRequest has read the log past its mark.
		<-p.polled
		p.log("get", time.Now())
		p.log("update", time.Now())
	}()
	tgt := Target{Replicas: []Replica{{Identity: "r0"}, {Identity: "r1", Proxy: p}}}
	if !tgt.AwaitRequest(context.Background(), since, since.Add(time.Minute), isUpdate) {
		t.Fatal("AwaitRequest = false, want true: an update began after since")
	}
}

func TestAwaitRequestTakesTheRequestsBegunAfterSinceWhateverTheirIDs(t *testing.T) {
	since := time.Now()
	// IDs are given just after start times are taken: two requests begun
	// together may get them the other way round.
	p := &loggingProxy{}
	p.log("update", since.Add(time.Millisecond)) // ID 1, after since
	p.log("get", since.Add(-time.Millisecond))   // ID 2, before since
	tgt := Target{Replicas: []Replica{{Identity: "r0", Proxy: p}}}
	if !tgt.AwaitRequest(context.Background(), since, since, isUpdate) {
		t.Fatal("AwaitRequest = false, want true: request 1 began after since")
	}
}

func TestAwaitRequestIgnoresRequestsBegunBeforeSince(t *testing.T) {
	since := time.Now()
	p := &loggingProxy{}
	p.log("update", since.Add(-time.Millisecond))
	p.log("update", since)
	tgt := Target{Replicas: []Replica{{Identity: "r0", Proxy: p}}}
	if tgt.AwaitRequest(context.Background(), since, time.Now().Add(10*time.Millisecond), isUpdate) {
		t.Fatal("AwaitRequest = true, want false: every update began at or before since")
	}
}

func TestAwaitRequestEndsWithItsContext(t *testing.T) {
	p := &loggingProxy{}
	tgt := Target{Replicas: []Replica{{Identity: "r0", Proxy: p}}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if tgt.AwaitRequest(ctx, time.Now(), time.Now().Add(time.Hour), isUpdate) {
		t.Fatal("AwaitRequest = true, want false: nothing was logged and the context ended")
	}
}
