// Package premisetest checks, without a cluster, how the lost-events
// specs judge: a premise that does not hold stops its spec at once with
// its own reason, and a premise read off the proxy log is judged on the
// log once the spec's waits are over.
package premisetest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/suites/lostevents"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// failures records the suite's failure instead of failing the test: the
// spec is meant to fail.
type failures struct{ failed bool }

func (f *failures) Fail() { f.failed = true }

// The specs of the tests below run in one Ginkgo suite (Ginkgo runs a
// process's suite once): each test declares its specs and checks their
// reports once the suite has run.
func TestJudging(t *testing.T) {
	t.Setenv("ARTIFACTS", t.TempDir())
	reports := map[string]types.SpecReport{}
	t.Setenv("STEADYSTATE_KEEP_EVIDENCE", "1")
	checks := []func(t *testing.T, reports map[string]types.SpecReport){failedPremise(), finalLog(), keptIsJudged()}
	ReportAfterEach(func(r SpecReport) { reports[r.LeafNodeText] = r })
	f := &failures{}
	RunSpecs(f, "lost-events judging")
	if !f.failed {
		t.Error("the suite passed: its failing specs did not fail")
	}
	for _, check := range checks {
		check(t, reports)
	}
}

// A workload that never converges before the fault: the premise stops the
// spec at once, an error naming the premise, and the spec goes no further
// (before, Await's error was dropped and the spec went on injecting
// faults).
func failedPremise() func(t *testing.T, reports map[string]types.SpecReport) {
	wentOn := false
	It("waits for a workload that never converges", func(ctx SpecContext) {
		spec := testenv.Begin()
		web := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "web", "namespace": "ns"},
			"spec": map[string]any{"replicas": int64(2)}, "status": map[string]any{"replicas": int64(0)}}}
		w, pods := oracle.NewHistory(), oracle.NewHistory()
		w.Add(oracle.Event{At: time.Now(), Type: "ADDED", Key: "ns/web", Object: web})
		spec.Evidence().AddHistory(judge.HistoryWorkload, w)
		spec.Evidence().AddHistory(judge.HistoryPods, pods)
		spec.Premise(ctx, catalog.LostHealthyBefore, judge.Bound{
			Convergence: oracle.Convergence{Since: time.Now(), Within: 50 * time.Millisecond, Window: 10 * time.Millisecond},
			History:     judge.HistoryWorkload,
			Want:        judge.ReplicasAndPods("ns/web", "spec.replicas", "status.replicas", "", judge.HistoryPods),
		})
		wentOn = true
	})
	return func(t *testing.T, reports map[string]types.SpecReport) {
		s := verdict.Classify("premise", reports["waits for a workload that never converges"])
		if wentOn || s.Outcome != verdict.Error || !strings.Contains(s.Reason, "assumption "+catalog.LostHealthyBefore.ID+" did not hold") {
			t.Errorf("a failed premise: spec %s %q, went on after it: %v; want an error naming %s, stopped there", s.Outcome, s.Reason, wentOn, catalog.LostHealthyBefore.ID)
		}
	}
}

// fakeProxy is a replica's proxy log that the test writes.
type fakeProxy struct {
	mu     sync.Mutex
	events []proxy.Event
}

func (f *fakeProxy) Replica() string                       { return "w-0" }
func (f *fakeProxy) AddRule(proxy.Rule) (string, error)    { return "", nil }
func (f *fakeProxy) RemoveRule(string) error               { return nil }
func (f *fakeProxy) ClearRules() error                     { return nil }
func (f *fakeProxy) CutWatches(proxy.Match) (int, error)   { return 0, nil }
func (f *fakeProxy) ResetWatches(proxy.Match) (int, error) { return 0, nil }
func (f *fakeProxy) Requests() []proxy.Request             { return nil }
func (f *fakeProxy) RequestsAfter(uint64) []proxy.Request  { return nil }
func (f *fakeProxy) Logged() <-chan struct{}               { return nil }
func (f *fakeProxy) Events() []proxy.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.events)
}
func (f *fakeProxy) add(e proxy.Event) { f.mu.Lock(); f.events = append(f.events, e); f.mu.Unlock() }

// The lost create's premise is judged on the proxy log once the spec's
// waits are over, the log `steadystate verify` reads: a relist that hands
// the lost pod back to the subject while recovery is awaited (a pod whose
// finalizer kept it deleting) breaks it, and the spec is an error. Judged
// as before, first, on the log as it stood at the fault, it held and the
// spec passed.
func finalLog() func(t *testing.T, reports map[string]types.SpecReport) {
	// scenario sets up a forced relist's evidence whose lost pod the
	// subject has not seen; deliver then hands it back and lets the
	// workload converge.
	scenario := func(spec *testenv.Spec) (deliver func() judge.Bound) {
		web := func(status int64) *unstructured.Unstructured {
			return &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "web", "namespace": "ns"},
				"spec": map[string]any{"replicas": int64(3)}, "status": map[string]any{"replicas": status}}}
		}
		pod := func(name string) *unstructured.Unstructured {
			return &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": name, "namespace": "ns"}}}
		}
		w, pods, p := oracle.NewHistory(), oracle.NewHistory(), &fakeProxy{}
		w.Add(oracle.Event{At: time.Now(), Type: "ADDED", Key: "ns/web", Object: web(2)})
		pods.Add(oracle.Event{At: time.Now(), Type: "ADDED", Key: "ns/web-a", Object: pod("web-a")})
		pods.Add(oracle.Event{At: time.Now(), Type: "ADDED", Key: "ns/web-b", Object: pod("web-b")})
		p.add(proxy.Event{Replica: "w-0", EventMeta: proxy.EventMeta{Type: "ERROR", Code: 410}, Delivered: true, Fault: "expire-2", At: time.Now()})
		spec.Evidence().AddHistory(judge.HistoryWorkload, w)
		spec.Evidence().AddHistory(judge.HistoryPods, pods)
		spec.Evidence().AddProxy("w-0", p)
		spec.Fact(judge.FactReplica.Name, "w-0")
		spec.Fact(judge.FactLostPod.Name, "web-c")
		return func() judge.Bound {
			since := time.Now()
			p.add(proxy.Event{Replica: "w-0", EventMeta: proxy.EventMeta{Type: "ADDED", Kind: "Pod", Namespace: "ns", Name: "web-c"}, Delivered: true, At: time.Now()})
			pods.Add(oracle.Event{At: time.Now(), Type: "ADDED", Key: "ns/web-d", Object: pod("web-d")})
			w.Add(oracle.Event{At: time.Now(), Type: "MODIFIED", Key: "ns/web", Object: web(3)})
			return judge.Bound{Convergence: oracle.Convergence{Since: since, Within: 5 * time.Second, Window: 20 * time.Millisecond},
				History: judge.HistoryWorkload, Want: judge.ReplicasAndPods("ns/web", "spec.replicas", "status.replicas", "", judge.HistoryPods)}
		}
	}
	It("waits, then judges", func(ctx SpecContext) {
		spec := testenv.Begin()
		deliver := scenario(spec)
		recovered := lostevents.Awaited(ctx, spec, catalog.LostCreateRecovered, deliver(), "recovery")
		spec.Verify(spec.Judged(catalog.LostEventWithheld), recovered)
	})
	It("judges the premise, then waits", func(ctx SpecContext) {
		spec := testenv.Begin()
		deliver := scenario(spec)
		spec.Verify(spec.Judged(catalog.LostEventWithheld), spec.Converges(ctx, catalog.LostCreateRecovered, deliver, "recovery"))
	})
	return func(t *testing.T, reports map[string]types.SpecReport) {
		if s := verdict.Classify("final log", reports["waits, then judges"]); s.Outcome != verdict.Error || !strings.Contains(s.Reason, "assumption "+catalog.LostEventWithheld.ID+" did not hold: the subject got ADDED pod/ns/web-c") {
			t.Errorf("judged once the waits are over: %s %q; want an error naming %s", s.Outcome, s.Reason, catalog.LostEventWithheld.ID)
		}
		// Judged first and waited after, as the other suites' checks
		// run: the premise held on the log of its moment, and the spec
		// passed, while its kept evidence broke it. Verify now judges it
		// again on the final evidence.
		if s := verdict.Classify("final log", reports["judges the premise, then waits"]); s.Outcome != verdict.Error || !strings.Contains(s.Reason, "assumption "+catalog.LostEventWithheld.ID+" did not hold") {
			t.Errorf("judged at the fault, then waited: %s %q; want an error naming %s (it passed before)", s.Outcome, s.Reason, catalog.LostEventWithheld.ID)
		}
	}
}

// The evidence a spec keeps is the evidence it was judged on: what the
// spec's recorders and proxies add after Verify (a delivery the subject
// got once the spec had judged) is not in it, so re-judging the kept
// evidence gives the spec's verdict. Before, the kept evidence was read
// when the spec ended: judged again, its premise broke where the spec
// had passed.
func keptIsJudged() func(t *testing.T, reports map[string]types.SpecReport) {
	const name = "judges, then the subject gets the lost pod"
	It(name, func(_ SpecContext) {
		spec := testenv.Begin()
		p := &fakeProxy{}
		p.add(proxy.Event{Replica: "w-0", EventMeta: proxy.EventMeta{Type: "ERROR", Code: 410}, Delivered: true, Fault: "expire-2", At: time.Now()})
		spec.Evidence().AddProxy("w-0", p)
		spec.Fact(judge.FactReplica.Name, "w-0")
		spec.Fact(judge.FactLostPod.Name, "web-c")
		spec.Verify(spec.Judged(catalog.LostEventWithheld))
		p.add(proxy.Event{Replica: "w-0", EventMeta: proxy.EventMeta{Type: "ADDED", Kind: "Pod", Namespace: "ns", Name: "web-c"}, Delivered: true, At: time.Now()})
	})
	return func(t *testing.T, reports map[string]types.SpecReport) {
		r := reports[name]
		if s := verdict.Classify("kept", r); s.Outcome != verdict.Passed {
			t.Fatalf("the spec: %s %q; want passed (the premise held when it was judged)", s.Outcome, s.Reason)
		}
		e, err := evidence.Read(filepath.Join(os.Getenv("ARTIFACTS"), testenv.ArtifactsFolder(r.FullText()), evidence.FileName))
		if err != nil {
			t.Fatalf("the kept evidence: %v", err)
		}
		if err := judge.Offline[catalog.LostEventWithheld.ID](e); err != nil {
			t.Errorf("the kept evidence re-judged: %s broken (%v); the spec judged it held", catalog.LostEventWithheld.ID, err)
		}
	}
}
