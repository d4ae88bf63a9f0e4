package matrix

import (
	"context"
	"sync"
)

// queue hands out a matrix's runs in order to the workers that run them,
// never two at once whose key (reports.Cell.Exclusive) is the same
// non-empty one: a run whose key is held waits, and the next free one is
// handed out instead.
type queue[T any] struct {
	mu      sync.Mutex
	cond    *sync.Cond
	pending []T
	key     func(T) string
	held    map[string]bool
}

func newQueue[T any](ctx context.Context, items []T, key func(T) string) *queue[T] {
	q := &queue[T]{pending: items, key: key, held: map[string]bool{}}
	q.cond = sync.NewCond(&q.mu)
	// A worker waiting for a key wakes when ctx ends, and takes nothing.
	context.AfterFunc(ctx, func() {
		q.mu.Lock()
		defer q.mu.Unlock()
		q.cond.Broadcast()
	})
	return q
}

// take returns the first pending item whose key is free, holding its key
// until done is called with it; false once nothing is pending or ctx
// ended.
func (q *queue[T]) take(ctx context.Context) (T, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for ctx.Err() == nil && len(q.pending) > 0 {
		for i, it := range q.pending {
			k := q.key(it)
			if k != "" && q.held[k] {
				continue
			}
			if k != "" {
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

// done frees the key of an item take returned.
func (q *queue[T]) done(it T) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if k := q.key(it); k != "" {
		delete(q.held, k)
		q.cond.Broadcast()
	}
}
