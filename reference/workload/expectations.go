package workload

import (
	"maps"
	"slices"
	"sync"
	"time"
)

// Expectations tracks, per workload, the pod creations and deletions the
// controller made and has not yet observed through its watch.
type Expectations struct {
	mu  sync.Mutex
	now func() time.Time
	m   map[string]*pending
}

type pending struct {
	creates, deletes map[string]bool
	since            time.Time // when they first became unsatisfied
}

// NewExpectations makes an empty set.
func NewExpectations() *Expectations {
	return &Expectations{now: time.Now, m: map[string]*pending{}}
}

func (e *Expectations) get(key string) *pending {
	p := e.m[key]
	if p == nil {
		p = &pending{creates: map[string]bool{}, deletes: map[string]bool{}}
		e.m[key] = p
	}
	if len(p.creates)+len(p.deletes) == 0 {
		p.since = e.now()
	}
	return p
}

// ExpectCreate records that pod is about to be created for key.
func (e *Expectations) ExpectCreate(key, pod string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.get(key).creates[pod] = true
}

// ExpectDelete records that pod is about to be deleted for key.
func (e *Expectations) ExpectDelete(key, pod string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.get(key).deletes[pod] = true
}

// ObserveCreate marks a creation as seen (or abandoned after an error).
func (e *Expectations) ObserveCreate(key, pod string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if p := e.m[key]; p != nil {
		delete(p.creates, pod)
	}
}

// ObserveDelete marks a deletion as seen.
func (e *Expectations) ObserveDelete(key, pod string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if p := e.m[key]; p != nil {
		delete(p.deletes, pod)
	}
}

// Satisfied reports whether nothing is pending for key; if something is, for
// how long, and which pods.
func (e *Expectations) Satisfied(key string) (bool, time.Duration, []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.m[key]
	if p == nil || len(p.creates)+len(p.deletes) == 0 {
		return true, 0, nil
	}
	dirty := append(slices.Sorted(maps.Keys(p.creates)), slices.Sorted(maps.Keys(p.deletes))...)
	return false, e.now().Sub(p.since), dirty
}

// Delete forgets everything pending for key.
func (e *Expectations) Delete(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.m, key)
}
