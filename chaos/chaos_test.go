package chaos

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeFault records calls, for the unit tests of Inject and Begin.
type fakeFault struct {
	name      string
	missing   error
	panics    bool
	injected  int
	recovered int
}

func (f *fakeFault) Name() string           { return f.name }
func (f *fakeFault) Available(Target) error { return f.missing }
func (f *fakeFault) Recover(context.Context, Target) error {
	f.recovered++
	return nil
}
func (f *fakeFault) Inject(ctx context.Context, _ Target) (Injection, error) {
	f.injected++
	if f.panics {
		panic("boom")
	}
	if err := ctx.Err(); err != nil {
		return Injection{Start: time.Now()}, err
	}
	return Injection{Start: time.Now()}, nil
}

func TestInjectRefusesUnavailableFaultsBeforeActing(t *testing.T) {
	f := &fakeFault{name: "needs-etcd", missing: errors.New("etcd is not reachable")}
	tl := NewTimeline()
	_, err := Inject(t.Context(), tl, f, Target{})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "needs-etcd: etcd is not reachable") {
		t.Fatalf("err = %v", err)
	}
	if f.injected != 0 || len(tl.Injections()) != 0 {
		t.Errorf("an unavailable fault was injected (%d) or recorded (%v)", f.injected, tl.Injections())
	}
	if _, err := Begin(t.Context(), tl, f, Target{}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Begin: %v", err)
	}
}

func TestInjectAlwaysRecovers(t *testing.T) {
	t.Run("cancelled", func(t *testing.T) {
		f := &fakeFault{name: "f"}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		tl := NewTimeline()
		if _, err := Inject(ctx, tl, f, Target{}); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v", err)
		}
		if f.recovered != 1 || len(tl.Injections()) != 1 {
			t.Fatalf("recovered %d times, %d records", f.recovered, len(tl.Injections()))
		}
		// A premise judged from the timeline sees that it failed, and why.
		if got := tl.Injections()[0].Error; got != context.Canceled.Error() {
			t.Errorf("the failed injection's record says %q", got)
		}
	})
	t.Run("panic", func(t *testing.T) {
		f := &fakeFault{name: "f", panics: true}
		func() {
			defer func() {
				if recover() == nil {
					t.Error("Inject swallowed the fault's panic")
				}
			}()
			_, err := Inject(t.Context(), NewTimeline(), f, Target{})
			t.Errorf("Inject returned (err = %v) instead of panicking", err)
		}()
		if f.recovered != 1 {
			t.Errorf("recovered %d times after a panic", f.recovered)
		}
	})
	t.Run("begin and end", func(t *testing.T) {
		f := &fakeFault{name: "f"}
		tl := NewTimeline()
		a, err := Begin(t.Context(), tl, f, Target{})
		if err != nil {
			t.Fatal(err)
		}
		if f.recovered != 0 || !a.Injection().End.IsZero() {
			t.Fatal("Begin must leave the fault active")
		}
		if err := a.End(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := a.End(t.Context()); err != nil {
			t.Fatalf("the second End: %v", err)
		}
		if f.recovered != 1 || len(tl.Injections()) != 1 || tl.Injections()[0].End.IsZero() || tl.Injections()[0].Error != "" {
			t.Errorf("End: recovered %d, records %+v", f.recovered, tl.Injections())
		}
	})
}

func TestTimelineOrdersAndSaves(t *testing.T) {
	tl := NewTimeline()
	late, early := time.Now().Add(time.Second), time.Now()
	tl.Add(Injection{Fault: "late", Start: late, End: late})
	tl.Add(Injection{Fault: "early", Start: early, End: early})
	if got := tl.Injections(); got[0].Fault != "early" || got[1].Fault != "late" {
		t.Errorf("order: %+v", got)
	}
	if err := tl.WriteFile(filepath.Join(t.TempDir(), "timeline.json")); err != nil {
		t.Fatal(err)
	}
}

func TestUnavailableOnTheWrongTarget(t *testing.T) {
	for _, tc := range []struct {
		fault Fault
		want  string
	}{
		{EtcdCompaction{}, "etcd is not reachable"},
		{ProcessFault{Replica: "r0", Action: Kill}, `the subject has no replica "r0"`},
		{ProcessFault{Replica: "r0", Action: Kill}.withTarget(), `replica "r0" is neither a local process nor a pod`},
		{ProcessFault{Replica: "r0", Action: "explode"}, "unknown process action"},
		{Stall("pods", 0), "no replica of the subject runs behind the fault proxy"},
		{Partition("r9", false, time.Second), `no replica "r9"`},
		{LeaderFailover{}, "needs the Lease's namespace and name"},
		{PodDeletion{Namespace: "x", Fraction: 2}, "fraction in [0,1]"},
	} {
		target := Target{}
		if w, ok := tc.fault.(targeted); ok {
			tc.fault, target = w.fault, w.target
		}
		if err := tc.fault.Available(target); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Available = %v, want %q", tc.fault.Name(), err, tc.want)
		}
	}
}

// targeted pairs a fault with a target that has a replica r0 without a
// process, for the table above.
type targeted struct {
	Fault
	fault  Fault
	target Target
}

func (f ProcessFault) withTarget() Fault {
	return targeted{Fault: f, fault: f, target: Target{Replicas: []Replica{{Identity: "r0"}}}}
}

// A replica without a proxy has no requests, rather than a nil dereference
// for every caller that reads them.
func TestReplicaWithoutProxyHasNoRequests(t *testing.T) {
	if reqs := (Replica{Identity: "direct"}).Requests(); reqs != nil {
		t.Errorf("Requests() = %v, want none", reqs)
	}
	if _, ok := (Target{Replicas: []Replica{{Identity: "direct"}}}).Holding("someone-else"); ok {
		t.Error("Holding found a holder among replicas without proxies")
	}
}
