package lostevents

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// The specs wait for their convergences first, then judge every premise
// and property at once (testenv.Spec.Verify) on the evidence as it then is: a
// premise read off the proxy log (the lost pod's events withheld, the
// fault's rule matched) is judged on the whole log, the one `steadystate
// verify` reads, not on the log as it stood at the fault.
func lostEventSpecs() {
	Describe("A scalable workload", Label("capability:scalable"), func() {
		var (
			ns   string
			spec *testenv.Spec
		)
		BeforeEach(func(ctx SpecContext) { ns, spec = testenv.NewNamespace(ctx, "lostevents"), testenv.Begin() })

		It("recovers a create hidden by a forced relist, and still acts on later scale changes", Label("fault:forced-relist", "fault:watch-stall", "fault:pod-deletion"), testenv.Judges(catalog.LostHealthyBefore, catalog.LostEventWithheld, catalog.LostCreateRecovered, catalog.LostLaterScale, catalog.LostNoOvershoot), func(ctx SpecContext) {
			w := StartWorkload(ctx, spec, ns)
			created := w.Create(ctx, 2)
			tl := spec.Timeline()
			w.Healthy(ctx, created)

			By("stalling the pod watch, scaling up by one, deleting the new pod, forcing a relist")
			before := map[string]bool{}
			for _, p := range w.LivePods() {
				before[p] = true
			}
			stall, err := chaos.Begin(ctx, tl, chaos.Stall("pods", 0), w.Target)
			Expect(err).NotTo(HaveOccurred())
			scaled := w.Scale(ctx, 3)
			var lost string
			Eventually(func() string {
				for _, p := range w.LivePods() {
					if !before[p] {
						lost = p
					}
				}
				return lost
			}).WithContext(ctx).WithTimeout(15*time.Second).WithPolling(20*time.Millisecond).ShouldNot(BeEmpty(), "the subject should create a pod")
			name := lost[len(ns)+1:]
			Expect(testenv.Get().Kube.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})).To(Succeed())
			_, relistErr := chaos.Inject(ctx, tl, &chaos.ForcedRelist{Resource: "pods"}, w.Target)
			judge.FactLostPod.Set(spec, name)
			if relistErr != nil {
				judge.FactInjectError.Set(spec, relistErr.Error())
			}
			Expect(stall.End(ctx)).To(Succeed())

			recovered := Awaited(ctx, spec, catalog.LostCreateRecovered, w.Until(testenv.Recovery(scaled, w.ExpectationTimeout())), "recovery")
			later := Awaited(ctx, spec, catalog.LostLaterScale, w.Until(testenv.Within(w.Scale(ctx, 4), 30*time.Second)), "")
			spec.Verify(
				spec.Judged(catalog.LostHealthyBefore),
				spec.Judged(catalog.LostEventWithheld),
				recovered,
				later,
				spec.Judged(catalog.LostNoOvershoot),
			)
		})

		It("never runs more pods than replicas when pod events arrive late", Label("fault:event-delay"), testenv.Judges(catalog.LostEventsDelayed, catalog.LostLateEvents, catalog.LostNoOvershoot), func(ctx SpecContext) {
			w := StartWorkload(ctx, spec, ns)
			tl := spec.Timeline()
			delay, err := chaos.Begin(ctx, tl, chaos.DelayEvents("pods", proxy.EventMatch{Types: []string{"ADDED"}, Namespace: ns}, 300*time.Millisecond, 0), w.Target)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(delay.End)
			created := w.Create(ctx, 3)
			settled := Awaited(ctx, spec, catalog.LostLateEvents, w.Until(testenv.Settle(created)), "")
			// Ended before the judging, so that the delay is on the
			// timeline; a recovery that failed is there too, for the
			// premise.
			_ = delay.End(ctx)
			spec.Verify(
				spec.Judged(catalog.LostEventsDelayed),
				settled,
				spec.Judged(catalog.LostNoOvershoot),
			)
		})
	})
}
