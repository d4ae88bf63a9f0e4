package matrix

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"testing"
)

// Items that share a key are never out at once: the next free one is
// handed out instead, in order, and the held one once its key is freed.
func TestQueueKeepsAKeyToOneRun(t *testing.T) {
	ctx := context.Background()
	keys := map[string][]string{"a1": {"port 1", "port 2"}, "a2": {"port 2"}, "b": nil, "c": {"port 3"}}
	q := newQueue(ctx, []string{"a1", "a2", "b", "c"}, func(s string) []string { return keys[s] })
	var got []string
	for range 3 {
		it, ok := q.take()
		if !ok {
			t.Fatal("take: nothing, with items pending")
		}
		got = append(got, it)
	}
	if want := []string{"a1", "b", "c"}; !slices.Equal(got, want) {
		t.Fatalf("handed out %q while a1 held port 2, want %q", got, want)
	}
	// A waiter for a2 gets it only once a1 is done: it reads, when take
	// returns, whether done was called before.
	var (
		mu       sync.Mutex
		released bool
	)
	type result struct {
		it            string
		afterReleased bool
	}
	taken := make(chan result)
	go func() {
		it, _ := q.take()
		mu.Lock()
		defer mu.Unlock()
		taken <- result{it, released}
	}()
	mu.Lock()
	released = true
	mu.Unlock()
	q.done("a1")
	if r := <-taken; r.it != "a2" || !r.afterReleased {
		t.Fatalf("the waiter got %q (after a1 was done: %v), want a2 after", r.it, r.afterReleased)
	}
	if it, ok := q.take(); ok {
		t.Fatalf("handed out %q with nothing pending", it)
	}
}

// Many workers over many items: every item is handed out once, and no
// two with the same key are out at the same time.
func TestQueueUnderWorkers(t *testing.T) {
	ctx := context.Background()
	var items []int
	for i := range 200 {
		items = append(items, i)
	}
	key := func(i int) string { return []string{"", "x", "y"}[i%3] }
	q := newQueue(ctx, items, func(i int) []string {
		if k := key(i); k != "" {
			return []string{k}
		}
		return nil
	})
	var (
		mu   sync.Mutex
		out  = map[string]int{}
		seen = map[int]int{}
		wg   sync.WaitGroup
	)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				it, ok := q.take()
				if !ok {
					return
				}
				k := key(it)
				mu.Lock()
				seen[it]++
				if k != "" {
					out[k]++
					if out[k] > 1 {
						t.Errorf("two items of key %q out at once", k)
					}
				}
				mu.Unlock()
				// Hold the item while the other workers take theirs.
				runtime.Gosched()
				mu.Lock()
				if k != "" {
					out[k]--
				}
				mu.Unlock()
				q.done(it)
			}
		}()
	}
	wg.Wait()
	for _, i := range items {
		if seen[i] != 1 {
			t.Errorf("item %d handed out %d times", i, seen[i])
		}
	}
}

// A worker waiting for a held key gives up when the context ends.
func TestQueueWaiterEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	q := newQueue(ctx, []string{"a1", "a2"}, func(string) []string { return []string{"port"} })
	if _, ok := q.take(); !ok {
		t.Fatal("take: nothing")
	}
	ended := make(chan bool)
	go func() {
		_, ok := q.take()
		ended <- ok
	}()
	cancel()
	if ok := <-ended; ok {
		t.Fatal("a waiter took an item after the context ended")
	}
}
