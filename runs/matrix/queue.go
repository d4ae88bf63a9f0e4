package matrix

import (
	"context"
	"sync"
)

// queue hands out a matrix's runs in order to the workers that run them,
// never two at once that share a key (reports.Cell.Exclusive): a run with
// a key held waits, and the next free one is handed out instead.
type queue[T any] struct {
	ctx     context.Context
	stop    func() bool
	mu      sync.Mutex
	cond    *sync.Cond
	pending []T
	keys    func(T) []string
	held    map[string]bool
}

// newQueue is a queue of items, in order, whose takes end when ctx does;
// call close once every worker is done.
func newQueue[T any](ctx context.Context, items []T, keys func(T) []string) *queue[T] {
	q := &queue[T]{ctx: ctx, pending: items, keys: keys, held: map[string]bool{}}
	q.cond = sync.NewCond(&q.mu)
	// A worker waiting for a key wakes when ctx ends, and takes nothing.
	q.stop = context.AfterFunc(ctx, func() {
		q.mu.Lock()
		defer q.mu.Unlock()
		q.cond.Broadcast()
	})
	return q
}

// take returns the first pending item none of whose keys is held, holding
// them until done is called with it; false once nothing is pending or the
// queue's context ended.
func (q *queue[T]) take() (T, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.ctx.Err() == nil && len(q.pending) > 0 {
		for i, it := range q.pending {
			keys := q.keys(it)
			if q.anyHeld(keys) {
				continue
			}
			for _, k := range keys {
				q.held[k] = true
			}
			q.pending = append(q.pending[:i:i], q.pending[i+1:]...)
			return it, true
		}
		q.cond.Wait()
	}
	var none T
	return none, false
}

func (q *queue[T]) anyHeld(keys []string) bool {
	for _, k := range keys {
		if q.held[k] {
			return true
		}
	}
	return false
}

// done frees the keys of an item take returned.
func (q *queue[T]) done(it T) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if keys := q.keys(it); len(keys) > 0 {
		for _, k := range keys {
			delete(q.held, k)
		}
		q.cond.Broadcast()
	}
}

// close lets go of the queue's watch on its context.
func (q *queue[T]) close() { q.stop() }
