package explore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/chaos/schedule"
	"github.com/steadystate-dev/steadystate/judge"
)

// Each process of a run that shares its reference runs makes one of them,
// the one of its index; alone, or replaying, it makes both.
func TestMakesReference(t *testing.T) {
	for _, tc := range []struct {
		c    Config
		want []bool
	}{
		{Config{}, []bool{true, true}},
		{Config{SharedReferences: "/x"}, []bool{true, true}},
		{Config{Shards: 4, Shard: 0}, []bool{true, true}},
		{Config{Shards: 4, Shard: 0, SharedReferences: "/x"}, []bool{true, false}},
		{Config{Shards: 4, Shard: 1, SharedReferences: "/x"}, []bool{false, true}},
		{Config{Shards: 4, Shard: 2, SharedReferences: "/x"}, []bool{false, false}},
		{Config{Shards: 4, Shard: 2, SharedReferences: "/x", Replay: "s.yaml"}, []bool{true, true}},
	} {
		for i, want := range tc.want {
			if got := tc.c.makesReference(i); got != want {
				t.Errorf("%+v: makes reference run %d: %v, want %v", tc.c, i+1, got, want)
			}
		}
	}
}

// Two processes write their reference runs into the shared folder; a
// third waits until both have ended and reads them in order, with what
// the first saw the controller use. A run that ended without its end
// state (it failed) leaves none, as it would alone.
func TestSharedReferenceRuns(t *testing.T) {
	dir := t.TempDir()
	first, second, third := &endStates{shared: dir}, &endStates{shared: dir}, &endStates{shared: dir}
	use := steadyUse{Watched: []string{"secrets"}, Requested: []schedule.Trigger{{Verb: "create", Resource: "configmaps"}}}

	if err := first.add(0, &judge.EndState{Namespace: "ns-1"}); err != nil {
		t.Fatal(err)
	}
	if err := first.used(use); err != nil {
		t.Fatal(err)
	}
	if err := first.ended(0); err != nil {
		t.Fatal(err)
	}
	// With one of two ended, the wait goes on until its context ends.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := third.await(ctx); err == nil || !strings.Contains(err.Error(), "reference run 2 of 2") {
		t.Fatalf("the wait with one reference run of two ended: %v", err)
	}
	if err := second.add(1, &judge.EndState{Namespace: "ns-2"}); err != nil {
		t.Fatal(err)
	}
	if err := second.ended(1); err != nil {
		t.Fatal(err)
	}
	if err := third.await(context.Background()); err != nil {
		t.Fatal(err)
	}
	refs := third.all()
	if len(refs) != 2 || refs[0].Namespace != "ns-1" || refs[1].Namespace != "ns-2" {
		t.Errorf("read %+v, want the two end states in order", refs)
	}
	if u := third.usage(); len(u.Watched) != 1 || u.Watched[0] != "secrets" || len(u.Requested) != 1 {
		t.Errorf("read use %+v, want the first run's", u)
	}

	// A failed second run: ended, no end state.
	dir = t.TempDir()
	a, b := &endStates{shared: dir}, &endStates{shared: dir}
	if err := a.add(0, &judge.EndState{Namespace: "ns-1"}); err != nil {
		t.Fatal(err)
	}
	for i := range references {
		if err := a.ended(i); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.await(context.Background()); err != nil || len(b.all()) != 1 {
		t.Errorf("after a failed second run: %v, %d end states, want the first only", err, len(b.all()))
	}
}

// A wait cut short says which reference run it waited for and where to
// look.
func TestSharedReferenceRunsNeverEnded(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := (&endStates{shared: t.TempDir()}).await(ctx)
	if err == nil || !strings.Contains(err.Error(), "reference run 1 of 2") || !strings.Contains(err.Error(), "shard-N") {
		t.Errorf("got %v, want the wait's end naming reference run 1 and the processes' folders", err)
	}
}

// A wait that ran out is not waited again by the next schedule: the
// reference runs it waited for are not coming.
func TestSharedReferenceRunsNotAwaitedTwice(t *testing.T) {
	dir := t.TempDir()
	r := &endStates{shared: dir, wait: 300 * time.Millisecond}
	first := r.await(context.Background())
	if first == nil {
		t.Fatal("the wait for reference runs never made ended without an error")
	}
	for i := range references {
		if err := (&endStates{shared: dir}).ended(i); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.await(context.Background()); err == nil || err.Error() != first.Error() {
		t.Errorf("the second wait: %v, want the first's error again, at once", err)
	}
}
