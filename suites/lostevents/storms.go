package lostevents

import (
	"errors"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/suites/subject"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

func stormSpecs() {
	Describe("A scalable workload under watch stalls and pod deletions", Label("capability:scalable"), func() {
		var (
			ns   string
			spec *testenv.Spec
		)
		BeforeEach(func(ctx SpecContext) { ns, spec = testenv.NewNamespace(ctx, "storms"), testenv.Begin() })

		It("converges once a stalled pod watch resumes, without a relist", Label("fault:watch-stall"), testenv.Judges(catalog.LostHealthyBefore, catalog.LostWatchStalled, catalog.LostAfterStall, catalog.LostNoOvershoot), func(ctx SpecContext) {
			w := StartWorkload(ctx, spec, ns)
			created := w.Create(ctx, 2)
			tl := spec.Timeline()
			w.Healthy(ctx, created)

			By("holding the pod watch while scaling to 4, until the new pods exist")
			stall, err := chaos.Begin(ctx, tl, chaos.Stall("pods", 0), w.Target)
			Expect(err).NotTo(HaveOccurred())
			scaled := w.Scale(ctx, 4)
			Eventually(func() int { return len(w.LivePods()) }).WithContext(ctx).WithTimeout(15*time.Second).Should(BeNumerically(">=", 4), "the new pods should exist (overshoot is the invariant's to judge)")
			Expect(stall.End(ctx)).To(Succeed())

			resumed := Awaited(ctx, spec, catalog.LostAfterStall, w.Until(testenv.Recovery(scaled, w.ExpectationTimeout())), "")
			spec.Verify(
				spec.Judged(catalog.LostHealthyBefore),
				spec.Judged(catalog.LostWatchStalled),
				resumed,
				spec.Judged(catalog.LostNoOvershoot),
			)
		})

		It("replaces pods deleted in a storm and settles", Label("fault:pod-deletion"), testenv.Judges(catalog.LostHealthyBefore, catalog.LostStormHappened, catalog.LostAfterStorm, catalog.LostNoOvershoot), func(ctx SpecContext) {
			w := StartWorkload(ctx, spec, ns)
			created := w.Create(ctx, 4)
			tl := spec.Timeline()
			w.Healthy(ctx, created)

			By("deleting half of the pods (grace 0), three times")
			var last time.Time
			for range 3 {
				// A deletion that fails is in the timeline, for the premise;
				// one that cannot run at all is the harness's.
				if _, err := chaos.Inject(ctx, tl, chaos.PodDeletion{Namespace: ns, Selector: "!" + subject.PodLabel, Fraction: 0.5}, w.Target); errors.Is(err, chaos.ErrUnavailable) {
					Fail(err.Error())
				}
				last = time.Now()
				Eventually(func() int { return len(w.LivePods()) }).WithContext(ctx).WithTimeout(w.ReplaceWithin()).Should(BeNumerically(">=", 4),
					"the subject should replace the deleted pods before the next round, within capabilities.scalableWorkload.replaceWithin (%s): raise it for a controller that backs off by design (overshoot is the invariant's to judge)", w.ReplaceWithin())
			}
			settled := Awaited(ctx, spec, catalog.LostAfterStorm, w.Until(testenv.AfterReplacement(last, w.ExpectationTimeout(), w.ReplaceWithin())), "")
			spec.Verify(
				spec.Judged(catalog.LostHealthyBefore),
				spec.Judged(catalog.LostStormHappened),
				settled,
				spec.Judged(catalog.LostNoOvershoot),
			)
		})
	})
}
