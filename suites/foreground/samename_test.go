package foreground

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/steadystate-dev/steadystate/catalog"
	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/suites/judge"
	"github.com/steadystate-dev/steadystate/suites/oracle"
	"github.com/steadystate-dev/steadystate/suites/subject"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

var _ = Describe("A foreground-deleted composite under same-name races", Label("capability:composite"), func() {
	var ns string
	BeforeEach(func(ctx SpecContext) { ns = testenv.NewNamespace(ctx, "samename") })

	It("settles concurrent creates of one claim, and a successor for the same external name while the old claim deletes", Label("fault:concurrent-create"), func(ctx SpecContext) {
		if subject.Composite().Claims().Block.Resource != "" {
			Skip("same-name races need an external name the harness controls: subject files bind none yet (only the reference controller's external system)")
		}
		c := start(ctx, ns)
		name := ns + "-db"
		tl := testenv.Timeline()
		race := &chaos.ConcurrentCreate{N: 3, Resource: c.claims, Object: c.claim("old", name)}
		_, raceErr := chaos.Inject(ctx, tl, race, chaos.Target{Dynamic: c.dyn})
		_, readyErr := testenv.Settle(time.Now()).Wait(ctx, c.history, isReady(ns+"/old"))
		oldUID := c.managedUID(ctx, "old")
		testenv.Fact(judge.FactExternalName, name)
		testenv.Fact(judge.FactOldOwner, oldUID)

		By("deleting the old claim slowly and creating a successor for the same external name while it deletes")
		Expect(c.ext.SlowDeletes(ctx, 2*time.Second)).To(Succeed())
		c.delete(ctx, "old")
		deleting := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 15*time.Second, true, func(context.Context) (bool, error) {
			s := c.manageds.StateAt(time.Now())
			return s[ns+"/old"] != nil && s[ns+"/old"].GetDeletionTimestamp() != nil, nil
		})
		c.create(ctx, "new", name)
		created := time.Now()
		stillDeleting := c.history.StateAt(created)[ns+"/old"] != nil
		var newUID string
		testenv.Verify(
			oracle.Check{Property: catalog.FgOneCreateWins, Run: func() error {
				won := 0
				for _, o := range race.Outcomes {
					if o.Result == "created" {
						won++
					}
				}
				if raceErr != nil || won != 1 {
					return fmt.Errorf("the API server let %d of %d creates of %s/old win (%v)", won, race.N, ns, raceErr)
				}
				return nil
			}},
			oracle.Check{Property: catalog.FgReadyBefore, Run: func() error { return readyErr }},
			oracle.Check{Property: catalog.FgOldDeleting, Run: func() error {
				if deleting != nil || !stillDeleting {
					return fmt.Errorf("the old claim was not deleting when its successor was created (%v)", deleting)
				}
				return nil
			}},
			oracle.Check{Property: catalog.FgSuccessorReady, Run: func() error {
				if _, err := testenv.Settle(created).Wait(ctx, c.history, func(s oracle.State) (bool, string) {
					ok, why := isReady(ns + "/new")(s)
					gone, _ := gone(ns + "/old")(s)
					return ok && gone, why
				}); err != nil {
					return err
				}
				newUID = c.managedUID(ctx, "new")
				if owner, err := c.ext.Owner(ctx, name); err != nil || owner != newUID {
					return fmt.Errorf("%w: the new claim is Ready but external resource %s is %v (owner %q, want the new managed object)", oracle.ErrNotConverged, name, err, owner)
				}
				return nil
			}},
			oracle.Check{Property: catalog.FgNoDeleteInUse, Run: func() error {
				if newUID == "" {
					newUID = c.managedUID(ctx, "new")
				}
				testenv.Fact(judge.FactNewOwner, newUID)
				return testenv.Judged(catalog.FgNoDeleteInUse).Run()
			}},
		)
	})
})
