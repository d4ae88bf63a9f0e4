package steps

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// record is what the steps of one feature share through its context: the
// recorded histories by name, the fault timeline, and when the desired
// state last changed (the last fault's end, or a step's mark).
type record struct {
	mu        sync.Mutex
	histories map[string]*oracle.History
	timeline  *chaos.Timeline
	since     time.Time
}

type recordKey struct{}

// from is the feature's record, made on first use.
func from(ctx context.Context) (context.Context, *record) {
	if r, ok := ctx.Value(recordKey{}).(*record); ok {
		return ctx, r
	}
	r := &record{histories: map[string]*oracle.History{}, timeline: chaos.NewTimeline(), since: time.Now()}
	return context.WithValue(ctx, recordKey{}, r), r
}

// Record starts recording resource in namespace (every object; "" for
// all namespaces) as the history name, until the test ends.
func Record(name string, resource schema.GroupVersionResource, namespace string) features.Func {
	return func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
		t.Helper()
		ctx, r := from(ctx)
		dyn, err := dynamic.NewForConfig(cfg.Client().RESTConfig())
		if err != nil {
			t.Fatal(err)
		}
		h, stop, err := oracle.RecordSelected(ctx, dyn, resource, namespace, "")
		if err != nil {
			t.Fatalf("record %s in %q: %v", resource.Resource, namespace, err)
		}
		t.Cleanup(stop)
		r.mu.Lock()
		r.histories[name] = h
		r.mu.Unlock()
		return ctx
	}
}

// Changed marks now as when the desired state changed: Converges measures
// from it (a step that creates or scales something calls it).
func Changed(ctx context.Context) context.Context {
	ctx, r := from(ctx)
	r.mu.Lock()
	r.since = time.Now()
	r.mu.Unlock()
	return ctx
}

// Target is the cluster of cfg as a fault's target: its clients.
func Target(cfg *envconf.Config) (chaos.Target, error) {
	rc := cfg.Client().RESTConfig()
	kube, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return chaos.Target{}, err
	}
	dyn, err := dynamic.NewForConfig(rc)
	return chaos.Target{Kube: kube, Dynamic: dyn}, err
}

// Inject injects f against the target, recovers it and records it on the
// feature's timeline; its end is when the desired state last changed. A
// fault that cannot act fails the test, as an error of the scenario.
func Inject(f chaos.Fault, target func(*envconf.Config) (chaos.Target, error)) features.Func {
	return func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
		t.Helper()
		ctx, r := from(ctx)
		tgt, err := target(cfg)
		if err != nil {
			t.Fatalf("the target of %s: %v", f.Name(), err)
		}
		inj, err := chaos.Inject(ctx, r.timeline, f, tgt)
		if err != nil {
			t.Fatalf("inject %s: %v", f.Name(), err)
		}
		t.Logf("injected %s on %s %v", inj.Fault, inj.Target, inj.Detail)
		r.mu.Lock()
		r.since = inj.End
		r.mu.Unlock()
		return ctx
	}
}

// Converges assesses eventual stable convergence: from when the desired
// state last changed, the history name reaches want within T and keeps
// it for W, judged as steadystate's suites judge it. As there, the
// verdict stands only on complete evidence (catalog.EvidenceComplete):
// when a recorded history of the feature may have missed events (its
// recorder's watch expired and would have had to relist), the step fails
// as an error of the evidence, "not evaluated", never as a pass or a
// finding.
func Converges(name string, want judge.Want, within, window time.Duration) features.Func {
	return func(ctx context.Context, t *testing.T, _ *envconf.Config) context.Context {
		t.Helper()
		ctx, r := from(ctx)
		r.mu.Lock()
		h, since := r.histories[name], r.since
		r.mu.Unlock()
		if h == nil {
			t.Fatalf("no history %q: record it first with steps.Record", name)
		}
		res, err := r.assess(ctx, h, want, oracle.Convergence{Since: since, Within: within, Window: window})
		if errors.Is(err, oracle.ErrNotEvaluated) {
			t.Fatalf("error: %s is not judged: %v", name, err)
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s held: the recorded histories are complete", catalog.EvidenceComplete.ID)
		t.Logf("%s converged in %s", name, res.Took.Round(time.Millisecond))
		return ctx
	}
}

// assess waits on h for the convergence's verdict, then judges whether
// the feature's evidence is complete: when it is not, the verdict is not
// evaluated (an error wrapping oracle.ErrNotEvaluated that names
// catalog.EvidenceComplete), whatever the wait found.
func (r *record) assess(ctx context.Context, h *oracle.History, want judge.Want, c oracle.Convergence) (oracle.Result, error) {
	res, err := converges(ctx, h, want, c)
	if incomplete := r.complete(); incomplete != nil {
		return oracle.Result{}, fmt.Errorf("%w: assumption %s did not hold (%s): %w", oracle.ErrNotEvaluated, catalog.EvidenceComplete.ID, catalog.EvidenceComplete.Sentence, incomplete)
	}
	return res, err
}

// complete is catalog.EvidenceComplete's judge on the feature's recorded
// histories: the suites' own.
func (r *record) complete() error {
	r.mu.Lock()
	e := &evidence.Evidence{Incomplete: map[string]string{}}
	for name, h := range r.histories {
		if err := h.Incomplete(); err != nil {
			e.Incomplete[name] = err.Error()
		}
	}
	r.mu.Unlock()
	return judge.Offline[catalog.EvidenceComplete.ID](e)
}

// converges waits on h until the convergence's verdict is known.
func converges(ctx context.Context, h *oracle.History, want judge.Want, c oracle.Convergence) (oracle.Result, error) {
	m, err := want.Match()
	if err != nil {
		return oracle.Result{}, fmt.Errorf("want: %w", err)
	}
	return c.Wait(ctx, h, m)
}
