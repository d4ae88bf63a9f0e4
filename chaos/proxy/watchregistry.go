package proxy

import (
	"strconv"
	"sync"
)

// watchRegistry tracks open watch streams so they can be cut.
type watchRegistry struct {
	mu      sync.Mutex
	watches map[uint64]*activeWatch
}

type activeWatch struct {
	info  RequestInfo
	cutCh chan struct{}
	reset bool // set before cutCh is closed
	once  sync.Once
}

func (aw *activeWatch) isCut() bool {
	select {
	case <-aw.cutCh:
		return true
	default:
		return false
	}
}

func newWatchRegistry() *watchRegistry {
	return &watchRegistry{watches: map[uint64]*activeWatch{}}
}

func (r *watchRegistry) add(id uint64, info RequestInfo) *activeWatch {
	aw := &activeWatch{info: info, cutCh: make(chan struct{})}
	r.mu.Lock()
	r.watches[id] = aw
	r.mu.Unlock()
	return aw
}

func (r *watchRegistry) remove(id uint64) {
	r.mu.Lock()
	delete(r.watches, id)
	r.mu.Unlock()
}

func (r *watchRegistry) cut(m Match, reset bool) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, aw := range r.watches {
		if watchMatches(m, aw.info) {
			aw.once.Do(func() {
				aw.reset = reset
				close(aw.cutCh)
			})
			n++
		}
	}
	return n
}

func (r *watchRegistry) count(m Match) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, aw := range r.watches {
		if watchMatches(m, aw.info) {
			n++
		}
	}
	return n
}

// watchMatches ignores Verbs: every registered stream is a watch.
func watchMatches(m Match, info RequestInfo) bool {
	m.Verbs = nil
	return m.Matches(info)
}

// rvTracker remembers the newest resource version seen per resource, for
// the "(Y)" of a synthetic 410 message.
type rvTracker struct {
	mu sync.Mutex
	m  map[string]uint64
}

func newRVTracker() *rvTracker { return &rvTracker{m: map[string]uint64{}} }

func (t *rvTracker) observe(resource, rv string) {
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return
	}
	t.mu.Lock()
	if n > t.m[resource] {
		t.m[resource] = n
	}
	t.mu.Unlock()
}

func (t *rvTracker) max(resource string) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m[resource]
}
