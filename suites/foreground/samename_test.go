package foreground

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/reference/external"
	"github.com/steadystate-dev/steadystate/suites/oracle"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

var _ = Describe("A foreground-deleted composite under same-name races", Label("capability:composite"), func() {
	var ns string
	BeforeEach(func(ctx SpecContext) { ns = testenv.NewNamespace(ctx, "samename") })

	It("settles concurrent creates of one name, and a re-create of that name while the old claim is deleting", Label("fault:concurrent-create"), func(ctx SpecContext) {
		c := start(ctx, ns)
		key, name := ns+"/app", ns+"-db"
		tl := testenv.Timeline()
		race := &chaos.ConcurrentCreate{N: 3, Resource: claims, Object: c.claim("app", name)}
		_, raceErr := chaos.Inject(ctx, tl, race, chaos.Target{Dynamic: c.dyn})
		_, readyErr := testenv.Settle(time.Now()).Wait(ctx, c.claims, isReady(key))

		By("deleting the claim slowly and creating it again under the same name until the API server accepts it")
		c.configure(ctx, external.Config{DeleteLatency: metav1.Duration{Duration: 2 * time.Second}})
		c.delete(ctx, "app")
		Eventually(func() error {
			_, err := c.dyn.Resource(claims).Namespace(ns).Create(ctx, c.claim("app", name), metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				return err
			}
			Expect(err).NotTo(HaveOccurred())
			return nil
		}).WithContext(ctx).WithTimeout(30*time.Second).WithPolling(100*time.Millisecond).Should(Succeed(), "the old claim should go and the name be free")
		recreated := time.Now()

		testenv.ExpectValid(oracle.Validate(
			oracle.Check{Stage: oracle.Assumption, Name: "exactly one of the concurrent creates won", Run: func() error {
				won := 0
				for _, o := range race.Outcomes {
					if o.Result == "created" {
						won++
					}
				}
				if raceErr != nil || won != 1 {
					return fmt.Errorf("the API server let %d of %d creates of %s win (%v)", won, race.N, key, raceErr)
				}
				return nil
			}},
			oracle.Check{Stage: oracle.Assumption, Name: "the claim was Ready before", Run: func() error { return readyErr }},
			oracle.Check{Stage: oracle.Liveness, Name: "the re-created claim becomes Ready within T, its Managed owning the external resource", Run: func() error {
				if _, err := testenv.Settle(recreated).Wait(ctx, c.claims, isReady(key)); err != nil {
					return err
				}
				uid := managedUID(ctx, c, "app")
				if res, err := c.ext.Observe(ctx, name, "steadystate"); err != nil || res.Owner != uid {
					return fmt.Errorf("%w: the claim is Ready but external resource %s is %v (owner %q, want the new Managed %s)", oracle.ErrNotConverged, name, err, res.Owner, uid)
				}
				return nil
			}},
		))
	})
})
