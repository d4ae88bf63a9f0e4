package chaos

import (
	"slices"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
)

// loggedProxy is a replica's proxy whose request log the test writes.
type loggedProxy struct {
	proxy.Controller
	reqs []proxy.Request
}

func (p *loggedProxy) Requests() []proxy.Request { return slices.Clone(p.reqs) }

// log logs a request that began at start, with the next ID.
func (p *loggedProxy) log(start time.Time) {
	p.reqs = append(p.reqs, proxy.Request{ID: uint64(len(p.reqs) + 1), Start: start})
}

func TestRequestMarksIsTheIDBeforeTheFirstRequestBegunAfterSince(t *testing.T) {
	since := time.Now()
	before, after, disagreeing := &loggedProxy{}, &loggedProxy{}, &loggedProxy{}
	before.log(since.Add(-2 * time.Millisecond))
	before.log(since) // at since: not after it
	after.log(since.Add(-time.Millisecond))
	after.log(since.Add(time.Millisecond))
	// IDs are given just after start times are taken: two requests begun
	// together may get them the other way round.
	disagreeing.log(since.Add(time.Millisecond))  // ID 1, after since
	disagreeing.log(since.Add(-time.Millisecond)) // ID 2, before it
	tgt := Target{Replicas: []Replica{{Identity: "none"}, {Identity: "before", Proxy: before}, {Identity: "after", Proxy: after}, {Identity: "disagreeing", Proxy: disagreeing}}}
	marks := tgt.RequestMarks(since)
	if len(marks) != 3 {
		t.Errorf("%d marks, want one for each of the 3 replicas with a proxy", len(marks))
	}
	for p, want := range map[*loggedProxy]uint64{before: 2, after: 1, disagreeing: 0} {
		if got := marks[p]; got != want {
			t.Errorf("mark %d, want %d (log %v)", got, want, p.reqs)
		}
	}
}
