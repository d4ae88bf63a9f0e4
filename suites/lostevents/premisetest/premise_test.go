// Package premisetest checks, without a cluster, that a lost-events
// premise that does not hold stops its spec at once with its own reason.
package premisetest

import (
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/catalog"
	"github.com/steadystate-dev/steadystate/suites/judge"
	"github.com/steadystate-dev/steadystate/suites/lostevents"
	"github.com/steadystate-dev/steadystate/suites/oracle"
	"github.com/steadystate-dev/steadystate/suites/testenv"
	"github.com/steadystate-dev/steadystate/verdict"
)

// failures records the suite's failure instead of failing the test: the
// spec is meant to fail.
type failures struct{ failed bool }

func (f *failures) Fail() { f.failed = true }

// A workload that never converges before the fault: the premise stops the
// spec at once, an error naming the premise, and the spec goes no further
// (before, Await's error was dropped and the spec went on injecting
// faults).
func TestAFailedPremiseStopsTheSpec(t *testing.T) {
	t.Setenv("ARTIFACTS", t.TempDir())
	wentOn := false
	var report types.SpecReport
	It("waits for a workload that never converges", func(ctx SpecContext) {
		web := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "web", "namespace": "ns"},
			"spec": map[string]any{"replicas": int64(2)}, "status": map[string]any{"replicas": int64(0)}}}
		w, pods := oracle.NewHistory(), oracle.NewHistory()
		w.Add(oracle.Event{At: time.Now(), Type: "ADDED", Key: "ns/web", Object: web})
		testenv.Evidence().AddHistory(judge.HistoryWorkload, w)
		testenv.Evidence().AddHistory(judge.HistoryPods, pods)
		lostevents.Premise(ctx, catalog.LostHealthyBefore, judge.Bound{
			Convergence: oracle.Convergence{Since: time.Now(), Within: 50 * time.Millisecond, Window: 10 * time.Millisecond},
			History:     judge.HistoryWorkload,
			Want:        judge.ReplicasAndPods("ns/web", "spec.replicas", "status.replicas", "", judge.HistoryPods),
		})
		wentOn = true
	})
	ReportAfterEach(func(r SpecReport) { report = r })
	f := &failures{}
	RunSpecs(f, "premise")
	if !f.failed || wentOn {
		t.Fatalf("the spec failed: %v; went on after the premise: %v", f.failed, wentOn)
	}
	s := verdict.Classify("premise", report)
	if s.Outcome != verdict.Error || !strings.Contains(s.Reason, "assumption "+catalog.LostHealthyBefore.ID+" did not hold") {
		t.Errorf("spec %s: %q; want an error naming %s", s.Outcome, s.Reason, catalog.LostHealthyBefore.ID)
	}
}
