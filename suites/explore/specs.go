package explore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/steadystate-dev/steadystate/chaos/schedule"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/runs/exploration/phases"
	"github.com/steadystate-dev/steadystate/runs/exploration/tally"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

const (
	// shortest is the least a schedule takes (the subject's start and
	// steady state, its steps, recovery and judgement): a budget
	// declares one spec per shortest of it, in each process that shares
	// the run's schedules.
	shortest = 5 * time.Second
	// mostSpecs caps the specs a budget declares, per process.
	mostSpecs = 5000
)

func specs(c Config) {
	st := newStats(c)
	capability := c.Capability
	if c.Replay != "" {
		if s, err := schedule.Load(c.Replay); err == nil {
			capability = s.Capability
		}
	}
	Describe("Exploration of a "+c.Capability+" subject", Label("explore", "capability:"+c.Capability), func() {
		var (
			ns   string
			spec *testenv.Spec
		)
		BeforeEach(func(ctx SpecContext) {
			if spent := st.spent(); spent && c.Replay == "" {
				Skip(fmt.Sprintf("the exploration budget (%s) is spent", c.Budget))
			}
			if c.First && st.found() {
				Skip("the run stops at its first finding")
			}
			ns, spec = testenv.NewNamespace(ctx, "explore"), testenv.Begin()
		})
		ReportAfterEach(st.done)

		// A reconciledObjects run's fault-free reference runs come first: each
		// schedule is compared with them. Declared here, above the
		// schedules, as Ginkgo runs a container's specs in the order of
		// their places in the source.
		// A process that shares them with the others of its run makes
		// only its own (Config.SharedReferences).
		if capability == schedule.Steady {
			for i := range references {
				if !c.makesReference(i) {
					continue
				}
				text := fmt.Sprintf("%s %d of %d", tally.ReferenceSpec, i+1, references)
				st.referenceSpecs[text] = i
				It(text, Label("reference"), testenv.Judges(referenceJudges(i)...), func(ctx SpecContext) {
					referenceRun(ctx, spec, i, ns, st.refs)
				})
			}
		}

		if c.Replay != "" {
			for i := range max(c.Repeat, 1) {
				It(replaySpec(c.Replay, i, max(c.Repeat, 1)), judges(c.Capability, c.Replay), func(ctx SpecContext) {
					s, err := schedule.Load(c.Replay)
					Expect(err).NotTo(HaveOccurred())
					st.run(ctx, spec, ns, s.Capability, func(driver) schedule.Schedule { return s })
				})
			}
			return
		}
		seeds := rand.New(rand.NewPCG(c.Seed, c.Seed^0x5eed))
		n := declared(c)
		width := len(fmt.Sprint(n))
		for i := range n {
			seed := seeds.Uint64()
			if c.Shards > 1 && i%c.Shards != c.Shard {
				continue
			}
			It(fmt.Sprintf("schedule %0*d (seed %d)", width, i+1, seed), judges(c.Capability, ""), func(ctx SpecContext) {
				st.run(ctx, spec, ns, c.Capability, func(d driver) schedule.Schedule {
					return schedule.Generate(seed, c.Capability, drawLimits(d, c.Pattern))
				})
			})
		}
	})
}

// declared is how many schedules the run draws: one per shortest of the
// budget, at most mostSpecs, for each process that shares them (each
// declares its share: as many as it could run alone).
func declared(c Config) int {
	return min(int(c.Budget/shortest)+1, mostSpecs) * max(c.Shards, 1)
}

// run is one spec: the subject started in ns as a driver of capability,
// the schedule drawn for it (draw), its steps, recovery and judgement. A
// failing spec keeps its schedule, with the properties it broke, beside
// its evidence.
func (st *stats) run(ctx SpecContext, spec *testenv.Spec, ns, capability string, draw func(driver) schedule.Schedule) {
	// What the spec's cleanups do (the subject's stop, the namespace's
	// deletion) is its tear-down, however its body ended.
	defer enter(phases.TearDown)
	if capability == schedule.Steady {
		Expect(st.refs.await(ctx)).To(Succeed())
	}
	d := start(ctx, spec, capability, ns, st.refs)
	s := draw(d)
	st.possible(d)
	DeferCleanup(func() { keepSchedule(s) })
	AddReportEntry("schedule", ReportEntryVisibilityNever, s)
	enter(phases.Steps)
	outcomes := execute(ctx, spec.Timeline(), d, s)
	enter(phases.Convergence)
	var notDone, covered []string
	faults := 0
	for _, o := range outcomes {
		if k, ok := st.tried(s.Steps[o.Step], o); ok && !slices.Contains(covered, k) {
			covered = append(covered, k)
		}
		what := describe(s.Steps[o.Step], o)
		spec.Fact(fmt.Sprintf("step %d", o.Step), what)
		if o.Skipped != "" {
			notDone = append(notDone, fmt.Sprintf("step %d: %s", o.Step, what))
		}
		if o.ranFault(s) {
			faults++
		}
	}
	judge.FactFaultSteps.Set(spec, faults)
	AddReportEntry(tally.NotDoneEntry, ReportEntryVisibilityNever, notDone)
	st.coverage(covered)
	// A fault that failed, or was never recovered, makes the schedule an
	// error before its subject is judged.
	if err := spec.Judged(catalog.ExploreStepsActed).Run(); err != nil && !errors.Is(err, oracle.ErrNotEvaluated) {
		verify(spec)
	}
	enter(phases.Convergence)
	restarted, err := restartStopped(ctx, d.target())
	Expect(err).NotTo(HaveOccurred())
	if len(restarted) > 0 {
		spec.Fact("restarted", strings.Join(restarted, ","))
	}
	// A replica that exits by itself while the schedule is judged is
	// started again as its kubelet would, and the facts say so. The
	// supervision ends before the spec's clean-up stops the subject, so no
	// restart races that stop.
	supervised, stopSupervising := context.WithCancel(ctx)
	ended := make(chan struct{})
	defer func() { stopSupervising(); <-ended }()
	var mu sync.Mutex
	var again []string
	go superviseExits(supervised, d.target(), ended, func(what string) {
		mu.Lock()
		defer mu.Unlock()
		again = append(again, what)
		spec.Fact("restarted after an exit", strings.Join(again, "; "))
		fmt.Fprintf(GinkgoWriter, "replica %s\n", what)
	})
	d.judge(ctx, time.Now())
}

// verify judges a schedule (testenv.Spec.Verify): first the premise that every
// fault step that ran acted (catalog.ExploreStepsActed), then the
// driver's checks. Every driver's judgement ends with it, or with
// verifyFinal when nothing is left to wait for. Its checks'
// times go to the schedule's phases: a convergence property's to
// phases.Convergence (its wait), the others' to phases.Judging.
func verify(spec *testenv.Spec, checks ...oracle.Check) {
	GinkgoHelper()
	spec.Verify(judging(spec, checks)...)
}

// verifyFinal is verify for a schedule whose waits are all over, every
// check one of spec.Judged's: each judges the frozen evidence once
// (testenv.Spec.VerifyFinal).
func verifyFinal(spec *testenv.Spec, checks ...oracle.Check) {
	GinkgoHelper()
	spec.VerifyFinal(judging(spec, checks)...)
}

// judging enters the judging phase and returns what verify and
// verifyFinal judge: the steps-acted premise, then checks, each timed in
// its phase.
func judging(spec *testenv.Spec, checks []oracle.Check) []oracle.Check {
	enter(phases.Judging)
	return timedPhases(append([]oracle.Check{spec.Judged(catalog.ExploreStepsActed)}, checks...))
}

// describe is a step and what became of it, for the spec's facts.
func describe(s schedule.Step, o outcome) string {
	switch {
	case o.Skipped != "":
		return s.String() + ": not done: " + o.Skipped
	case o.Err != "":
		return fmt.Sprintf("%s: done at %s (%s), failed: %s", s, o.At, o.Phase, o.Err)
	}
	return fmt.Sprintf("%s: done at %s (%s)", s, o.At, o.Phase)
}

// keepSchedule writes s, with the properties the spec broke, into a
// failing spec's artifacts.
func keepSchedule(s schedule.Schedule) {
	r := CurrentSpecReport()
	if !r.Failed() || len(s.Steps) == 0 {
		return
	}
	s.Breaks = strings.Join(verdict.BrokenIDs(verdict.Records(r)), ",")
	data, err := schedule.Marshal(s)
	if err == nil {
		dir := testenv.SpecArtifacts()
		if err = os.MkdirAll(dir, 0o755); err == nil {
			err = os.WriteFile(filepath.Join(dir, tally.ScheduleFile), data, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintf(GinkgoWriter, "keep the schedule: %v\n", err)
	}
}
