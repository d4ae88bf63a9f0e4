package foreground

import (
	"context"
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

func sameNameSpecs() {
	Describe("A foreground-deleted composite under same-name races", Label("capability:composite"), func() {
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
			// A race that fails is in the timeline, for the premise.
			chaos.Inject(ctx, tl, race, chaos.Target{Dynamic: c.dyn})
			testenv.Await(ctx, catalog.FgReadyBefore, c.until(testenv.Settle(time.Now()), judge.Ready(ns+"/old")))
			oldUID := c.managedUID(ctx, "old")
			testenv.Fact(judge.FactExternalName, name)
			testenv.Fact(judge.FactOldOwner, oldUID)
			testenv.Fact(judge.FactClaim, ns+"/old")

			By("deleting the old claim slowly and creating a successor for the same external name while it deletes")
			Expect(c.ext.SlowDeletes(ctx, 2*time.Second)).To(Succeed())
			c.delete(ctx, "old")
			// Create the successor once the old Managed object is deleting (the
			// premise judges both from the histories), or after 15s.
			wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 15*time.Second, true, func(context.Context) (bool, error) {
				old := c.manageds.StateAt(time.Now())[ns+"/old"]
				return old != nil && old.GetDeletionTimestamp() != nil, nil
			})
			c.create(ctx, "new", name)
			created := time.Now()
			testenv.FactTime(judge.FactSuccessorCreated, created)
			var newUID string
			successor := testenv.Judged(catalog.FgSuccessorReady)
			testenv.Verify(
				testenv.Judged(catalog.FgOneCreateWins),
				testenv.Judged(catalog.FgReadyBefore),
				testenv.Judged(catalog.FgOldDeleting),
				oracle.Check{Property: catalog.FgSuccessorReady, Run: func() error {
					want := judge.All(judge.Ready(ns+"/new"), judge.Gone(ns+"/old"))
					if _, err := testenv.Await(ctx, catalog.FgSuccessorReady, c.until(testenv.Settle(created), want)); err == nil {
						newUID = c.managedUID(ctx, "new")
						testenv.Fact(judge.FactNewOwner, newUID)
					}
					return successor.Run()
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
}
