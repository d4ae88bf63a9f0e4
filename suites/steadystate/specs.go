package steadystate

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL reads best unqualified.
	. "github.com/onsi/gomega"    //nolint:revive // as above.

	"github.com/steadystate-dev/steadystate/catalog"
	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/internal/testenv"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/oracle"
	"github.com/steadystate-dev/steadystate/verdict"
)

var leavesID = catalog.SteadyLeavesNothing.ID

func steadySpecs() {
	Describe("Any controller", Label("capability:steady-state"), func() {
		var ns string
		BeforeEach(func(ctx SpecContext) { ns = testenv.NewNamespace(ctx, "steady") })

		// The first two specs are fault-free runs of the same objects and
		// changes: their end states are the references the faulted runs
		// are compared with, and what differs between the two is masked.
		It("settles, goes quiet and leaves nothing behind", testenv.Judges(catalog.SteadySettles, catalog.SteadyQuiescent, catalog.SteadyLeavesNothing, catalog.SteadyNoFinalizer), func(ctx SpecContext) {
			sc := start(ctx, ns)
			settled := sc.run(ctx)
			sc.keepReference(settled)
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
				testenv.Judged(catalog.SteadyNoFinalizer),
			)
		})

		It("settles the same way in a second clean run", testenv.Judges(catalog.SteadySettles, catalog.SteadyNoFinalizer), func(ctx SpecContext) {
			sc := start(ctx, ns)
			sc.keepReference(sc.run(ctx))
			testenv.Verify(
				testenv.Judged(catalog.SteadySettles),
				testenv.Judged(catalog.SteadyNoFinalizer),
			)
		})

		It("settles again after a restart right after its first write, as a clean run does", Label("fault:process-restart"), testenv.Judges(catalog.SteadyRestarted, catalog.SteadyRecovers, catalog.SteadySettles, catalog.SteadySameEndState, catalog.SteadyNoChurn, catalog.SteadyNoFinalizer), func(ctx SpecContext) {
			if p := testenv.Run().Placement; p != testenv.Processes {
				// Not judged, and the result says so (a skipped spec of a
				// bound capability is a gap): on kind the correct
				// reference controller broke steadystate/recovers, a
				// false alarm whose cause is not yet found.
				Skip(fmt.Sprintf("not judged with subjects in %s: this suite's restart of a replica is validated only for local processes so far (SUBJECT_PLACEMENT=processes)", p))
			}
			sc := start(ctx, ns)
			sc.compareWith(references)
			sc.apply(ctx)
			who, err := sc.firstWrite(ctx)
			// A controller that writes only once something changes (the
			// garbage collector, which writes when an owner goes) gets
			// the changes one at a time, as the reference runs made them,
			// until it writes.
			done := 0
			for ; err != nil && done < len(sc.b.Changes) && ctx.Err() == nil; done++ {
				sc.change(ctx, sc.b.Changes[done])
				who, err = sc.firstWrite(ctx)
			}
			Expect(err).NotTo(HaveOccurred())
			// A restart that fails is in the timeline, for the premise.
			inj, _ := chaos.Inject(ctx, testenv.Timeline(), chaos.ProcessFault{Replica: who, Action: chaos.Restart, Grace: time.Millisecond}, sc.target)
			// Then the other changes, as the reference runs made them:
			// the end state is compared with theirs.
			sc.changes(ctx, sc.settle(ctx, judge.FactSteadyRecover, "the controller's restart", inj.End), done)
			sc.end()
			checks := []oracle.Check{
				testenv.Judged(catalog.SteadyRestarted),
				testenv.Judged(catalog.SteadyRecovers),
				testenv.Judged(catalog.SteadySameEndState),
				testenv.Judged(catalog.SteadyNoChurn),
				testenv.Judged(catalog.SteadyNoFinalizer),
			}
			switch {
			case done < len(sc.b.Changes):
				checks = append(checks, testenv.Judged(catalog.SteadySettles))
			case len(sc.b.Changes) == 0:
				testenv.NotBound(catalog.SteadySettles, "capabilities.steadyState.changes binds no change for this spec to settle after, once the controller recovered")
			default:
				testenv.NotBound(catalog.SteadySettles, "every change was applied before the restart, to draw the controller's first write: none was left to settle after it (recovers judges the state after the restart)")
			}
			testenv.Verify(checks...)
		})

		// Faults at the moments that break controllers (faults.go), each
		// once the objects have settled, around another party's write.
		// faulted is such a spec's body: inject returns when the fault was
		// lifted and the first change it left to apply after it.
		faulted := func(premise verdict.Property, what string, inject func(sc *scenario, ctx context.Context, tl *chaos.Timeline) (time.Time, int)) func(ctx SpecContext) {
			return func(ctx SpecContext) {
				sc := start(ctx, ns)
				sc.compareWith(references)
				if !sc.settledFirst(ctx) || !sc.disturbable(premise == catalog.SteadyStaleView || premise == catalog.SteadyMissedEvents, faultProperties(premise)...) {
					return
				}
				recovered, next := inject(sc, ctx, testenv.Timeline())
				// A controller the harness's writes drew no write from
				// (the Job controller, its Jobs complete) has none to
				// refuse: its properties are not bound, saying why.
				if sc.drewNoWrite(premise) {
					return
				}
				sc.afterFault(ctx, premise, what, recovered, next)
			}
		}
		judges := func(premise verdict.Property) Labels { return testenv.Judges(faultProperties(premise)...) }

		It("ends as a clean run does after a stale view: its watches stalled while another party writes, then resumed", Label("fault:watch-stall"), judges(catalog.SteadyStaleView),
			faulted(catalog.SteadyStaleView, "the stalled watches resumed", (*scenario).staleView))

		It("ends as a clean run does after missed events: another party's write dropped from its watches, then a forced relist", Label("fault:event-drop", "fault:forced-relist"), judges(catalog.SteadyMissedEvents),
			faulted(catalog.SteadyMissedEvents, "the forced relists", (*scenario).missedEvents))

		It("ends as a clean run does, without churning, after its writes are answered 429, then 500, then 409", Label("fault:answer-429", "fault:answer-500", "fault:answer-409"), judges(catalog.SteadyWritesRefused),
			faulted(catalog.SteadyWritesRefused, "the refused writes", (*scenario).refusedWrites))
	})
}
