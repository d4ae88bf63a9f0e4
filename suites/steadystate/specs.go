package steadystate

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL reads best unqualified.
	. "github.com/onsi/gomega"    //nolint:revive // as above.

	"github.com/steadystate-dev/steadystate/catalog"
	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/internal/testenv"
	"github.com/steadystate-dev/steadystate/judge"
)

var leavesID = catalog.SteadyLeavesNothing.ID

func steadySpecs() {
	Describe("Any controller", Label("capability:steady-state"), func() {
		var ns string
		BeforeEach(func(ctx SpecContext) { ns = testenv.NewNamespace(ctx, "steady") })

		It("settles, goes quiet and leaves nothing behind", testenv.Judges(catalog.SteadySettles, catalog.SteadyQuiescent, catalog.SteadyLeavesNothing), func(ctx SpecContext) {
			sc := start(ctx, ns)
			sc.apply(ctx)
			settled := sc.settle(ctx, judge.FactSteadySettle, "the objects were applied", sc.applied)
			for _, c := range sc.b.Changes {
				if !settled {
					break
				}
				at := sc.change(ctx, c)
				settled = sc.settle(ctx, judge.FactSteadySettle, c.String(), at)
			}
			// Quiescence is owed by a settled state only: unsettled, its
			// window is not recorded and it is not evaluated.
			if settled {
				sc.quiet(ctx)
			}
			sc.deleteAll(ctx)
			testenv.Verify(
				testenv.Judged(catalog.SteadySettles),
				testenv.Judged(catalog.SteadyQuiescent),
				testenv.Judged(catalog.SteadyLeavesNothing),
			)
		})

		It("settles again after a restart right after its first write", Label("fault:process-restart"), testenv.Judges(catalog.SteadyRestarted, catalog.SteadyRecovers), func(ctx SpecContext) {
			if p := testenv.Run().Placement; p != testenv.Processes {
				// Not judged, and the result says so (a skipped spec of a
				// bound capability is a gap): on kind the correct
				// reference controller broke steadystate/recovers, a
				// false alarm whose cause is not yet found.
				Skip(fmt.Sprintf("not judged with subjects in %s: this suite's restart of a replica is validated only for local processes so far (SUBJECT_PLACEMENT=processes)", p))
			}
			sc := start(ctx, ns)
			sc.apply(ctx)
			who, err := sc.firstWrite(ctx)
			Expect(err).NotTo(HaveOccurred())
			// A restart that fails is in the timeline, for the premise.
			inj, _ := chaos.Inject(ctx, testenv.Timeline(), chaos.ProcessFault{Replica: who, Action: chaos.Restart, Grace: time.Millisecond}, sc.target)
			sc.settle(ctx, judge.FactSteadyRecover, "the controller's restart", inj.End)
			testenv.Verify(
				testenv.Judged(catalog.SteadyRestarted),
				testenv.Judged(catalog.SteadyRecovers),
			)
		})
	})
}
