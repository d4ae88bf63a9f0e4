package reconcile

import (
	"context"
	"fmt"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

var leavesID = catalog.SteadyLeavesNothing.ID

// restartProperties are what a restart's spec judges beside its premise.
var restartProperties = []verdict.Property{catalog.SteadyRecovers, catalog.SteadySettles, catalog.SteadySameEndState, catalog.SteadyNoChurn, catalog.SteadyNoFinalizer, catalog.SteadyQuiescent, catalog.SteadyNoPanic}

// steadySpecs declares the suite's specs: the two clean reference runs,
// then the faulted runs that are part's (testenv.Part.Deal; all of them
// for the whole suite). Each part runs the clean runs its faulted runs
// are compared with.
func steadySpecs(part testenv.Part) {
	mine := part.Deal()
	// it declares a spec after the clean runs when it is part's, at the
	// line it is called from (Offset): Ginkgo runs a container's specs in
	// the order of their lines, so the clean runs come first.
	it := func(text string, args ...any) {
		if mine() {
			It(text, append(args, Offset(1))...)
		}
	}
	Describe("Any controller", Label("capability:reconciled-objects"), func() {
		var (
			ns    string
			spec  *testenv.Spec
			clean cleanRuns // the clean runs', for the specs after them
		)
		BeforeEach(func(ctx SpecContext) { ns, spec = testenv.NewNamespace(ctx, "steady"), testenv.Begin() })

		// The first two specs are fault-free runs of the same objects and
		// changes: their end states are the references the faulted runs
		// are compared with, and what differs between the two is masked.
		// The first also deletes the objects, and notes whether its first
		// change drew a write of the controller. The second watches the
		// settled state for the quiet window before it makes that change:
		// a controller quiet only because it no longer acts does not act
		// on it, where the first run's did.
		It("settles and leaves nothing behind", testenv.Judges(catalog.SteadySettles, catalog.SteadyLeavesNothing, catalog.SteadyNoFinalizer, catalog.SteadyActs, catalog.SteadyNoPanic), func(ctx SpecContext) {
			sc := start(ctx, spec, ns)
			clean = cleanRuns{}
			settled := sc.run(ctx)
			if len(sc.b.Changes) > 0 {
				drew := sc.drew(0)
				clean.firstDrew = &drew
			}
			sc.keepReference(ctx, settled, &clean)
			sc.deleteAll(ctx)
			spec.Verify(
				spec.Judged(catalog.SteadySettles),
				spec.Judged(catalog.SteadyLeavesNothing),
				spec.Judged(catalog.SteadyNoFinalizer),
				spec.Judged(catalog.SteadyActs),
				spec.Judged(catalog.SteadyNoPanic),
			)
		})

		It("settles the same way in a second clean run, goes quiet and still acts", testenv.Judges(catalog.SteadySettles, catalog.SteadyQuiescent, catalog.SteadyNoFinalizer, catalog.SteadyActs, catalog.SteadyNoPanic), func(ctx SpecContext) {
			sc := start(ctx, spec, ns)
			sc.apply(ctx)
			settled := sc.settle(ctx, judge.FactSteadySettle, "the objects were applied", sc.applied)
			checks := []oracle.Check{spec.Judged(catalog.SteadySettles)}
			// Quiescence is owed by a settled state only: unsettled, its
			// window is not watched and it is not bound (settles is the
			// finding).
			if settled {
				sc.awaitStatuses(ctx, clean.ends, sc.applied)
				if at := sc.quietThen(ctx, clean.firstDrew); !at.IsZero() {
					settled = sc.settle(ctx, judge.FactSteadySettle, sc.b.Changes[0].String(), at)
					if clean.firstDrew != nil && *clean.firstDrew {
						// The change's write is quiescent's to see: wait
						// for it up to T (at once for a live controller),
						// also when the objects looked settled without it.
						sc.wroteSince(ctx, at)
					}
					settled = sc.changes(ctx, settled, 1)
				}
				checks = append(checks, spec.Judged(catalog.SteadyQuiescent))
			} else {
				spec.NotBound(catalog.SteadyQuiescent, "the objects did not settle once applied: quiescence is owed by a settled state only, and no quiet window was watched (settles is the finding)")
			}
			sc.keepReference(ctx, settled, &clean)
			spec.Verify(append(checks,
				spec.Judged(catalog.SteadyNoFinalizer),
				spec.Judged(catalog.SteadyActs),
				spec.Judged(catalog.SteadyNoPanic),
			)...)
		})

		it("settles again after a restart right after its first write, as a clean run does", Label("fault:process-restart"), testenv.Judges(append([]verdict.Property{catalog.SteadyRestarted}, restartProperties...)...), func(ctx SpecContext) {
			skipUnlessRestartable()
			sc := start(ctx, spec, ns)
			sc.compareWith(clean.ends)
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
			if err != nil {
				// Nothing to restart after: the clean runs judge a
				// controller that never acts (acts).
				sc.notBound(fmt.Sprintf("%v: there was no first write to restart the controller after (acts judges a controller that never writes, in the clean runs)", err), append([]verdict.Property{catalog.SteadyRestarted}, restartProperties...)...)
				return
			}
			end := sc.restart(ctx, who).End
			// Then the other changes, as the reference runs made them:
			// the end state is compared with theirs.
			settled := sc.changes(ctx, sc.settle(ctx, judge.FactSteadyRecover, "the controller's restart", end), done)
			var settles []oracle.Check
			switch {
			case done < len(sc.b.Changes) && len(sc.phases[judge.FactSteadySettle]) == 0:
				spec.NotBound(catalog.SteadySettles, "the state did not settle after the restart, so the changes left were not made (recovers is the finding): none settled or failed to")
			case done < len(sc.b.Changes):
				settles = append(settles, spec.Judged(catalog.SteadySettles))
			case len(sc.b.Changes) == 0:
				spec.NotBound(catalog.SteadySettles, "capabilities.reconciledObjects.changes binds no change for this spec to settle after, once the controller recovered")
			default:
				spec.NotBound(catalog.SteadySettles, "every change was applied before the restart, to draw the controller's first write: none was left to settle after it (recovers judges the state after the restart)")
			}
			sc.finish(ctx, settled, catalog.SteadyRestarted, settles...)
		})

		// An upgrade: the controller restarted once everything settled,
		// before the next change. A controller that knows what it made
		// only from memory makes it again.
		it("settles again after a restart once settled, as an upgrade restarts it, as a clean run does", Label("fault:process-restart"), testenv.Judges(append([]verdict.Property{catalog.SteadyRestartedSettled}, restartProperties...)...), func(ctx SpecContext) {
			skipUnlessRestartable()
			sc := start(ctx, spec, ns)
			sc.compareWith(clean.ends)
			if !sc.settledFirst(ctx, append([]verdict.Property{catalog.SteadyRestartedSettled}, restartProperties...)...) {
				return
			}
			end := sc.restart(ctx, sc.target.Replicas[0].Identity).End
			settled := sc.changes(ctx, sc.settle(ctx, judge.FactSteadyRecover, "the controller's restart", end), 0)
			sc.finish(ctx, settled, catalog.SteadyRestartedSettled, spec.Judged(catalog.SteadySettles))
		})

		// Sieve's intermediate states: the controller restarted right
		// after its first create of each resource the clean runs saw it
		// create, so that each time it starts again over something half
		// made.
		it("settles again after restarts right after its first create of each resource, as a clean run does", Label("fault:process-restart"), testenv.Judges(append([]verdict.Property{catalog.SteadyRestartedCreates}, restartProperties...)...), func(ctx SpecContext) {
			skipUnlessRestartable()
			sc := start(ctx, spec, ns)
			want := createdByReferences(clean.ends)
			if len(want) == 0 {
				sc.notBound("the clean reference runs saw the controller create nothing: there is no first create to restart it after", append([]verdict.Property{catalog.SteadyRestartedCreates}, restartProperties...)...)
				return
			}
			sc.compareWith(clean.ends)
			sc.apply(ctx)
			end := sc.applied
			covered := map[string]bool{}
			for len(covered) < len(want) && ctx.Err() == nil {
				who, err := sc.firstCreate(ctx, want, covered)
				if err != nil {
					// The premise names what was never made.
					break
				}
				inj := sc.restart(ctx, who)
				end = inj.End
				// Covered is what was made before the restart began: a
				// create answered while it went on is followed by the
				// next one (as the premise counts them).
				for _, res := range sc.createdBefore(want, inj.Start) {
					covered[res] = true
				}
				// A create the restart cut off that made its object is
				// followed too: the restarted controller finds the
				// object, and need not make it again.
				for _, res := range sc.madeUnanswered(ctx, want, covered, inj.End) {
					fmt.Fprintf(GinkgoWriter, "the restart cut off the controller's create of %s, which made its object all the same: the restart followed that create\n", res)
					covered[res] = true
				}
			}
			settled := sc.changes(ctx, sc.settle(ctx, judge.FactSteadyRecover, "the controller's last restart", end), 0)
			sc.finish(ctx, settled, catalog.SteadyRestartedCreates, sc.settlesAfter()...)
		})

		// Faults at the moments that break controllers (faults.go), each
		// once the objects have settled, around another party's write.
		// faulted is such a spec's body: inject returns when the fault was
		// lifted and the first change it left to apply after it.
		faulted := func(premise verdict.Property, what string, inject func(sc *scenario, ctx context.Context, tl *chaos.Timeline) (time.Time, int)) func(ctx SpecContext) {
			return func(ctx SpecContext) {
				sc := start(ctx, spec, ns)
				sc.compareWith(clean.ends)
				if !sc.settledFirst(ctx, faultProperties(premise)...) || !sc.disturbable(premise == catalog.SteadyStaleView || premise == catalog.SteadyMissedEvents, faultProperties(premise)...) {
					return
				}
				recovered, next := inject(sc, ctx, spec.Timeline())
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

		it("ends as a clean run does after a stale view: its watches stalled while another party writes, then resumed", Label("fault:watch-stall"), judges(catalog.SteadyStaleView),
			faulted(catalog.SteadyStaleView, "the stalled watches resumed", (*scenario).staleView))

		it("ends as a clean run does after missed events: another party's write dropped from its watches, then a forced relist", Label("fault:event-drop", "fault:forced-relist"), judges(catalog.SteadyMissedEvents),
			faulted(catalog.SteadyMissedEvents, "the forced relists", (*scenario).missedEvents))

		it("ends as a clean run does, without churning, after its writes are answered 429, then 500, then 409", Label("fault:answer-429", "fault:answer-500", "fault:answer-409"), judges(catalog.SteadyWritesRefused),
			faulted(catalog.SteadyWritesRefused, "the refused writes", (*scenario).refusedWrites))
	})
}

// skipUnlessRestartable skips the spec, saying why, where the suite
// cannot restart the controller: only local processes are restarted in
// place so far. It comes before the spec starts anything.
func skipUnlessRestartable() {
	if p := testenv.Run().Placement; p != testenv.Processes {
		// Not judged, and the result says so (a skipped spec of a
		// bound capability is a gap): on kind the correct reference
		// controller broke reconcile/recovers, a false alarm whose
		// cause is not yet found.
		Skip(fmt.Sprintf("not judged with subjects in %s: this suite's restart of a replica is validated only for local processes so far (SUBJECT_PLACEMENT=processes)", p))
	}
}

// restart restarts replica who (killed at once: no shutdown code runs,
// as a node's loss or an upgrade's kill does) and returns when it runs
// again (the injection's End). A restart that fails is the harness's:
// the spec fails with it, and its premise is never taken from a restart
// that did not happen.
func (sc *scenario) restart(ctx context.Context, who string) chaos.Injection {
	inj, err := chaos.Inject(ctx, sc.spec.Timeline(), chaos.ProcessFault{Replica: who, Action: chaos.Restart, Grace: time.Millisecond}, sc.target)
	Expect(err).NotTo(HaveOccurred(), "restart the controller (replica %s)", who)
	return inj
}

// finish takes the end state of a faulted or restarted run (its last
// phase settled or not: settled), watches it quiet once it settled, and
// judges the spec: its premise, the checks given (settles), recovers,
// same-end-state and no-churn where there is a settled reference to
// compare with, no-finalizer-on-deleting, quiescent and no-panic.
func (sc *scenario) finish(ctx context.Context, settled bool, premise verdict.Property, checks ...oracle.Check) {
	sc.end(ctx)
	checks = append([]oracle.Check{sc.spec.Judged(premise)}, checks...)
	checks = append(checks, sc.spec.Judged(catalog.SteadyRecovers))
	checks = append(checks, sc.comparisons()...)
	// Whether quiescence is owed is decided from the evidence, as
	// validate re-makes it (judge.OfflineNotBound: a phase broken, a
	// watch not back after the faults).
	why := judge.QuiescentUnbound(sc.spec.Evidence().Snapshot())
	if why == "" && !settled {
		why = "the state did not settle again after the fault (or after a change applied then): quiescence is owed by a settled state only, and no quiet window was watched (recovers or settles is the finding)"
	}
	if why == "" {
		sc.quiet(ctx, sc.afterQuiet())
		checks = append(checks, sc.spec.Judged(catalog.SteadyQuiescent))
	} else {
		sc.spec.NotBound(catalog.SteadyQuiescent, why)
	}
	sc.spec.Verify(append(checks, sc.spec.Judged(catalog.SteadyNoFinalizer), sc.spec.Judged(catalog.SteadyNoPanic))...)
}

// settlesAfter is settles' check in a spec whose every phase of
// FactSteadySettle comes after its fault (a change once the controller
// recovered): not bound, saying why, when the recovery did not settle
// and no change was made.
func (sc *scenario) settlesAfter() []oracle.Check {
	if len(sc.phases[judge.FactSteadySettle]) == 0 {
		why := "the state did not settle after the fault, so no change was made after it (recovers is the finding)"
		if len(sc.b.Changes) == 0 {
			why = "capabilities.reconciledObjects.changes binds no change for this spec to settle after, once the controller recovered"
		}
		sc.spec.NotBound(catalog.SteadySettles, why)
		return nil
	}
	return []oracle.Check{sc.spec.Judged(catalog.SteadySettles)}
}

// comparisons are same-end-state's and no-churn's checks, each not bound
// (saying why) where the run has nothing to compare: no clean reference
// run settled (settles broke there: the finding), or the end state was
// taken before every change was made (a recovery that did not settle:
// recovers is the finding).
func (sc *scenario) comparisons() []oracle.Check {
	// No reference at all is missing evidence, an error (the judges say
	// so); a reference that did not settle is the subject's finding, and
	// with one unsettled, what varies between clean runs cannot be
	// learned: comparing with the other alone would call a generated
	// name or a random token a difference.
	if slices.ContainsFunc(sc.refs, func(r *judge.EndState) bool { return r.NotReady != "" }) {
		why := "a fault-free reference run of this suite run did not settle (settles broke there: the finding), so there is no pair of clean end states to learn what varies from, and none to compare with"
		sc.spec.NotBound(catalog.SteadySameEndState, why)
		sc.spec.NotBound(catalog.SteadyNoChurn, why)
		return nil
	}
	var out []oracle.Check
	if why := judge.SameEndStateUnbound(sc.spec.Evidence().Snapshot()); why != "" {
		sc.spec.NotBound(catalog.SteadySameEndState, why)
	} else {
		out = append(out, sc.spec.Judged(catalog.SteadySameEndState))
	}
	return append(out, sc.spec.Judged(catalog.SteadyNoChurn))
}

// createdByReferences are the resources the clean reference runs saw the
// controller create, sorted.
func createdByReferences(refs []*judge.EndState) []string {
	var out []string
	for _, r := range refs {
		for res, n := range r.Creates {
			if n > 0 && !slices.Contains(out, res) {
				out = append(out, res)
			}
		}
	}
	slices.Sort(out)
	return out
}
