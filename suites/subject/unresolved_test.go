package subject

import (
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/subjectfile"
)

// failures records the suite's failure instead of failing the test: the
// first spec is meant to fail.
type failures struct{ failed bool }

func (f *failures) Fail() { f.failed = true }

// A binding one spec proved does not resolve stops the run there: the
// specs of the capability after it are not run, and each says which field
// and which spec proved it. Before, every later spec ran and failed the
// same way, each reported as an error of its own.
func TestUnresolvedBindingStopsTheCapability(t *testing.T) {
	reports := map[string]types.SpecReport{}
	ReportAfterEach(func(r SpecReport) { reports[r.LeafNodeText] = r })
	wentOn := false
	field := &subjectfile.Error{Subject: "foo", Field: "capabilities.scalableWorkload.statusReplicasPath",
		Problem: "status.availableReplicaz does not resolve on the live Foo ns/web", Expected: "the path of an integer field the object has"}
	// Specs of one container run in the order written (no --randomize-all).
	Describe("a subject whose binding names a field its objects lack", func() {
		It("proves it", func() {
			Unresolved(ScalableBinding, CurrentSpecReport().FullText(), field)
			Fail(field.Error())
		})
		It("would drive the capability again", func() {
			Scalable()
			wentOn = true
		})
		It("drives another capability", func() {
			LeaderElected()
		})
	})
	f := &failures{}
	RunSpecs(f, "unresolved bindings")

	later := reports["would drive the capability again"]
	if wentOn || later.State != types.SpecStateSkipped {
		t.Fatalf("the spec after the proof: %s, went on: %v; want skipped", later.State, wentOn)
	}
	msg := later.Failure.Message
	for _, want := range []string{NotRun, "capabilities.scalableWorkload.statusReplicasPath", `proved by spec "a subject whose binding names a field its objects lack proves it"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("its reason %q does not say %q", msg, want)
		}
	}
	if other := reports["drives another capability"]; other.State != types.SpecStatePassed {
		t.Errorf("a spec of another capability: %s %q; want passed (only the unresolved binding's specs stop)", other.State, other.Failure.Message)
	}
}
