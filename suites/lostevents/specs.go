package lostevents

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/steadystate-dev/steadystate/catalog"
	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/suites/judge"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

func lostEventSpecs() {
	Describe("A scalable workload", Label("capability:scalable"), func() {
		var ns string
		BeforeEach(func(ctx SpecContext) { ns = testenv.NewNamespace(ctx, "lostevents") })

		It("recovers a create hidden by a forced relist, and still acts on later scale changes", Label("fault:forced-relist", "fault:watch-stall", "fault:pod-deletion"), testenv.Judges(catalog.LostHealthyBefore, catalog.LostEventWithheld, catalog.LostCreateRecovered, catalog.LostLaterScale, catalog.LostNoOvershoot), func(ctx SpecContext) {
			w := StartWorkload(ctx, ns)
			created := w.Create(ctx, 2)
			tl := testenv.Timeline()

			testenv.Await(ctx, catalog.LostHealthyBefore, w.Until(testenv.Settle(created)))

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
			testenv.Fact(judge.FactLostPod, name)
			if relistErr != nil {
				testenv.Fact(judge.FactInjectError, relistErr.Error())
			}
			Expect(stall.End(ctx)).To(Succeed())

			testenv.Verify(
				testenv.Judged(catalog.LostHealthyBefore),
				testenv.Judged(catalog.LostEventWithheld),
				testenv.Converges(ctx, catalog.LostCreateRecovered, func() judge.Bound {
					return w.Until(testenv.Recovery(scaled, w.ExpectationTimeout()))
				}, "recovery"),
				testenv.Converges(ctx, catalog.LostLaterScale, func() judge.Bound {
					return w.Until(testenv.Within(w.Scale(ctx, 4), 30*time.Second))
				}, ""),
				testenv.Judged(catalog.LostNoOvershoot),
			)
		})

		It("never runs more pods than replicas when pod events arrive late", Label("fault:event-delay"), testenv.Judges(catalog.LostLateEvents, catalog.LostNoOvershoot), func(ctx SpecContext) {
			w := StartWorkload(ctx, ns)
			tl := testenv.Timeline()
			delay, err := chaos.Begin(ctx, tl, chaos.DelayEvents("pods", proxy.EventMatch{Types: []string{"ADDED"}, Namespace: ns}, 300*time.Millisecond, 0), w.Target)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(delay.End)
			created := w.Create(ctx, 3)
			testenv.Verify(
				testenv.Converges(ctx, catalog.LostLateEvents, func() judge.Bound { return w.Until(testenv.Settle(created)) }, ""),
				testenv.Judged(catalog.LostNoOvershoot),
			)
		})
	})
}
