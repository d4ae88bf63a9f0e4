package foreground

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/steadystate-dev/steadystate/catalog"
	"github.com/steadystate-dev/steadystate/reference/external"
	"github.com/steadystate-dev/steadystate/suites/judge"
	"github.com/steadystate-dev/steadystate/suites/oracle"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

var _ = Describe("A foreground-deleted composite", Label("capability:composite"), func() {
	var ns string
	BeforeEach(func(ctx SpecContext) { ns = testenv.NewNamespace(ctx, "foreground") })

	It("tells the truth about a blocked deletion, names the blocker, and completes once unblocked", Label("fault:external-delete-failure"), func(ctx SpecContext) {
		c := start(ctx, ns)
		key, name := ns+"/app", ns+"-db"
		created := time.Now()
		c.create(ctx, "app", name)
		_, readyErr := testenv.Settle(created).Wait(ctx, c.claims, isReady(key))

		By("making external deletes fail, then deleting the claim")
		c.configure(ctx, external.Config{FailDeletes: true})
		deleted := time.Now()
		c.delete(ctx, "app")
		testenv.Fact(judge.FactClaim, key)
		testenv.FactTime(judge.FactDeleted, deleted)
		testenv.Fact(judge.FactWindow, testenv.Current.Window.String())
		testenv.Fact(judge.FactExternalName, name)
		// Convergence checks run in order: (a) is judged last, over the
		// whole deletion, once the claim is gone.
		testenv.Verify(
			oracle.Check{Property: catalog.FgReadyBefore, Run: func() error { return readyErr }},
			oracle.Check{Property: catalog.FgBlockerNamed, Run: func() error {
				_, err := testenv.Within(deleted, 15*time.Second).Wait(ctx, c.claims, func(s oracle.State) (bool, string) {
					_, _, msg, _, _ := judge.ClaimReady(s, key)
					return strings.Contains(msg, "Managed "+key), fmt.Sprintf("Ready message %q does not name Managed %s", msg, key)
				})
				return err
			}},
			oracle.Check{Property: catalog.FgDeletionCompletes, Run: func() error {
				c.configure(ctx, external.Config{})
				_, err := testenv.Settle(time.Now()).Wait(ctx, c.claims, gone(key))
				return err
			}},
			testenv.Judged(catalog.FgDeletingStatus),
			// The premise: judged first, so it waits (15s at most) for the
			// controller's first external delete to be refused.
			oracle.Check{Property: catalog.FgDeletionBlocked, Run: func() error {
				var blocked error
				premise := testenv.Judged(catalog.FgDeletionBlocked)
				err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 15*time.Second, true, func(context.Context) (bool, error) {
					blocked = premise.Run()
					return blocked == nil, nil
				})
				if err != nil {
					return fmt.Errorf("within 15s of the delete: %w", blocked)
				}
				return nil
			}},
		)
	})
})

func managedUID(ctx context.Context, c *composition, name string) string {
	obj, err := c.dyn.Resource(manageds).Namespace(c.ns).Get(ctx, name, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	return string(obj.GetUID())
}
