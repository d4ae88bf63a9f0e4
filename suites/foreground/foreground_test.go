package foreground

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadystate-dev/steadystate/reference/external"
	"github.com/steadystate-dev/steadystate/suites/oracle"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// ErrDeletedInUse is the safety property of external-name reuse.
var ErrDeletedInUse = errors.New("a deleting owner must never delete an external resource after its successor started using it")

var _ = Describe("A foreground-deleted composite", Label("capability:composite"), func() {
	var ns string
	BeforeEach(func(ctx SpecContext) { ns = testenv.NewNamespace(ctx, "foreground") })

	It("tells the truth about a blocked deletion, names the blocker, and completes once unblocked", Label("fault:external-delete-failure"), func(ctx SpecContext) {
		c := start(ctx, ns)
		key := ns + "/app"
		created := time.Now()
		c.create(ctx, "app", ns+"-db")
		_, readyErr := testenv.Settle(created).Wait(ctx, c.claims, isReady(key))

		By("making external deletes fail, then deleting the claim")
		c.configure(ctx, external.Config{FailDeletes: true})
		deleted := time.Now()
		c.delete(ctx, "app")
		testenv.ExpectValid(oracle.Validate(
			oracle.Check{Stage: oracle.Assumption, Name: "the claim was Ready before", Run: func() error { return readyErr }},
			oracle.Check{Stage: oracle.Liveness, Name: "Ready=False reason=Deleting within 5s", Run: func() error {
				_, err := oracle.Convergence{Since: deleted, Within: 5 * time.Second, Window: 2 * time.Second}.Wait(ctx, c.claims, func(s oracle.State) (bool, string) {
					status, reason, _, deleting, _ := ready(s, key)
					return deleting && status == "False" && reason == "Deleting", fmt.Sprintf("deleting=%v Ready=%s reason=%s", deleting, status, reason)
				})
				return err
			}},
			oracle.Check{Stage: oracle.Liveness, Name: "the blocking Managed is named within 15s", Run: func() error {
				_, err := testenv.Within(deleted, 15*time.Second).Wait(ctx, c.claims, func(s oracle.State) (bool, string) {
					_, _, msg, _, _ := ready(s, key)
					return strings.Contains(msg, "Managed "+key), fmt.Sprintf("Ready message %q does not name Managed %s", msg, key)
				})
				return err
			}},
			oracle.Check{Stage: oracle.Liveness, Name: "the deletion completes within T once unblocked", Run: func() error {
				c.configure(ctx, external.Config{})
				_, err := testenv.Settle(time.Now()).Wait(ctx, c.claims, gone(key))
				return err
			}},
		))
	})

	It("never lets an old owner delete an external resource its successor uses", Label("fault:concurrent-create"), func(ctx SpecContext) {
		c := start(ctx, ns)
		name := ns + "-db"
		c.create(ctx, "old", name)
		_, readyErr := testenv.Settle(time.Now()).Wait(ctx, c.claims, isReady(ns+"/old"))
		oldUID := managedUID(ctx, c, "old")

		By("deleting the old claim slowly and creating a new one for the same external name")
		c.configure(ctx, external.Config{DeleteLatency: metav1.Duration{Duration: 2 * time.Second}})
		c.delete(ctx, "old")
		Eventually(func() bool {
			s := c.manageds.StateAt(time.Now())
			return s[ns+"/old"] != nil && s[ns+"/old"].GetDeletionTimestamp() != nil
		}).WithContext(ctx).WithTimeout(15 * time.Second).Should(BeTrue())
		c.create(ctx, "new", name)
		created := time.Now()
		var newUID string
		testenv.ExpectValid(oracle.Validate(
			oracle.Check{Stage: oracle.Assumption, Name: "the old claim was Ready before", Run: func() error { return readyErr }},
			oracle.Check{Stage: oracle.Liveness, Name: "the new claim becomes Ready and the old one goes", Run: func() error {
				if _, err := testenv.Settle(created).Wait(ctx, c.claims, func(s oracle.State) (bool, string) {
					ok, why := isReady(ns + "/new")(s)
					gone, _ := gone(ns + "/old")(s)
					return ok && gone, why
				}); err != nil {
					return err
				}
				newUID = managedUID(ctx, c, "new")
				if res, err := c.ext.Observe(ctx, name, "steadystate"); err != nil || res.Owner != newUID {
					return fmt.Errorf("%w: the new claim is Ready but external resource %s is %v (owner %q, want the new Managed)", oracle.ErrNotConverged, name, err, res.Owner)
				}
				return nil
			}},
			oracle.Check{Stage: oracle.Safety, Name: "no delete by the old owner after the new one used the resource", Run: func() error {
				ops, err := c.ext.Log(ctx)
				if err != nil {
					return err
				}
				used := false
				for _, op := range ops {
					used = used || op.Owner == newUID
					if used && op.Owner == oldUID && op.Op == "delete" && op.Result == "ok" {
						return fmt.Errorf("%w: the old Managed deleted %s at %s", ErrDeletedInUse, name, op.At.Format("15:04:05.000"))
					}
				}
				return nil
			}},
		))
	})
})

func managedUID(ctx context.Context, c *composition, name string) string {
	obj, err := c.dyn.Resource(manageds).Namespace(c.ns).Get(ctx, name, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	return string(obj.GetUID())
}
