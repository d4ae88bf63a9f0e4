package lostevents

import (
	"errors"
	"fmt"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/suites/oracle"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// ErrOvershoot is the safety property of scaling: a workload never runs
// more pods than its replicas.
var ErrOvershoot = errors.New("a scalable workload must never run more pods than spec.replicas")

var _ = Describe("A scalable workload", Label("capability:scalable"), func() {
	var ns string
	BeforeEach(func(ctx SpecContext) { ns = testenv.NewNamespace(ctx, "lostevents") })

	It("recovers a create hidden by a forced relist, and still acts on later scale changes", Label("fault:forced-relist", "fault:watch-stall", "fault:pod-deletion"), func(ctx SpecContext) {
		w := startSubject(ctx, ns)
		created := w.create(ctx, 2)
		tl := testenv.Timeline()

		healthy := testenv.Settle(created)
		_, healthyErr := healthy.Wait(ctx, w.history, w.converged)

		By("stalling the pod watch, scaling up by one, deleting the new pod, forcing a relist")
		before := map[string]bool{}
		for _, p := range w.livePods() {
			before[p] = true
		}
		stall, err := chaos.Begin(ctx, tl, chaos.Stall("pods", 0), w.target)
		Expect(err).NotTo(HaveOccurred())
		scaled := w.scale(ctx, 3)
		var lost string
		Eventually(func() string {
			for _, p := range w.livePods() {
				if !before[p] {
					lost = p
				}
			}
			return lost
		}).WithContext(ctx).WithTimeout(15*time.Second).WithPolling(20*time.Millisecond).ShouldNot(BeEmpty(), "the subject should create a pod")
		name := lost[len(ns)+1:]
		Expect(testenv.Get().Kube.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})).To(Succeed())
		_, relistErr := chaos.Inject(ctx, tl, &chaos.ForcedRelist{Resource: "pods"}, w.target)
		Expect(stall.End(ctx)).To(Succeed())

		recovery := testenv.Recovery(scaled, w.expectationTimeout())
		var took time.Duration
		err = oracle.Validate(
			oracle.Check{Stage: oracle.Assumption, Name: "the subject converged before the fault", Run: func() error { return healthyErr }},
			oracle.Check{Stage: oracle.Assumption, Name: "the relist was forced", Run: func() error { return forcedRelist(relistErr, w.subjectProxy()) }},
			oracle.Check{Stage: oracle.Liveness, Name: "status.replicas converges after the lost create", Run: func() error {
				r, err := recovery.Wait(ctx, w.history, w.converged)
				took = r.Took
				return err
			}},
			oracle.Check{Stage: oracle.Liveness, Name: "a later scale change is acted on within 30s", Run: func() error {
				later := testenv.Within(w.scale(ctx, 4), 30*time.Second)
				_, err := later.Wait(ctx, w.history, w.converged)
				return err
			}},
		)
		testenv.ExpectValid(err)
		AddReportEntry("recovery time after the lost create", took.String())
	})

	It("never runs more pods than replicas when pod events arrive late", Label("fault:event-delay"), func(ctx SpecContext) {
		w := startSubject(ctx, ns)
		tl := testenv.Timeline()
		delay, err := chaos.Begin(ctx, tl, chaos.DelayEvents("pods", proxy.EventMatch{Types: []string{"ADDED"}, Namespace: ns}, 300*time.Millisecond, 0), w.target)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(delay.End)
		created := w.create(ctx, 3)
		err = oracle.Validate(
			oracle.Check{Stage: oracle.Liveness, Name: "status.replicas converges with late events", Run: func() error {
				_, err := testenv.Settle(created).Wait(ctx, w.history, w.converged)
				return err
			}},
			oracle.Check{Stage: oracle.Safety, Name: "never more pods than replicas", Run: func() error { return peakWithin(w.pods.Events(), 3) }},
		)
		testenv.ExpectValid(err)
	})
})

// forcedRelist checks that the fault really happened: the injection
// succeeded and the proxy answered a re-watch with 410 Expired.
func forcedRelist(injectErr error, p proxy.Controller) error {
	if injectErr != nil {
		return injectErr
	}
	if !slices.ContainsFunc(p.Events(), func(e proxy.Event) bool { return e.Type == "ERROR" && e.Code == 410 && e.Fault != "" }) {
		return errors.New("the proxy recorded no 410 Expired answer")
	}
	return nil
}

// peakWithin replays pod events and fails if more than limit were alive at
// once. Pods here are never scheduled, so a delete removes them at once.
func peakWithin(events []oracle.Event, limit int) error {
	live, peak := map[string]bool{}, 0
	var at time.Time
	for _, e := range events {
		if e.Type == "DELETED" || e.Object.GetDeletionTimestamp() != nil {
			delete(live, e.Key)
		} else {
			live[e.Key] = true
		}
		if len(live) > peak {
			peak, at = len(live), e.At
		}
	}
	if peak > limit {
		return fmt.Errorf("%w: %d pods alive at %s for %d replicas", ErrOvershoot, peak, at.Format(time.RFC3339Nano), limit)
	}
	return nil
}
