package foreground

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

func foregroundSpecs() {
	Describe("A foreground-deleted composite", Label("capability:composite"), func() {
		var (
			ns   string
			spec *testenv.Spec
		)
		BeforeEach(func(ctx SpecContext) { ns, spec = testenv.NewNamespace(ctx, "foreground"), testenv.Begin() })

		It("tells the truth about a blocked deletion, names the blocker, and completes once unblocked", Label("fault:blocked-deletion"), testenv.Judges(catalog.FgReadyBefore, catalog.FgDeletionBlocked, catalog.FgDeletingStatus, catalog.FgBlockerNamed, catalog.FgDeletionCompletes), func(ctx SpecContext) {
			c := StartComposition(ctx, spec, ns)
			key, name := ns+"/app", ns+"-db"
			created := time.Now()
			c.Create(ctx, "app", name)
			spec.Premise(ctx, catalog.FgReadyBefore, c.Until(testenv.Settle(created), judge.Ready(key)))

			By("holding up the deletion of what the claim owns, then deleting the claim")
			blockErr := c.Block(ctx, "app")
			deleted := time.Now()
			c.Delete(ctx, "app")
			judge.FactClaim.Set(spec, key)
			judge.FactDeleted.Set(spec, deleted)
			judge.FactWindow.Set(spec, testenv.Current.Window)
			if c.External() != nil {
				judge.FactExternalName.Set(spec, name)
			}
			// Convergence checks run in order: (a) is judged last, over the
			// whole deletion, once the claim is gone.
			checks := []oracle.Check{spec.Judged(catalog.FgReadyBefore)}
			if msg := c.BlockerMessage("app"); msg != "" {
				checks = append(checks, spec.Converges(ctx, catalog.FgBlockerNamed, func() judge.Bound {
					return c.Until(testenv.Within(deleted, 15*time.Second), judge.ReadyNames(key, msg))
				}, ""))
			} else {
				spec.NotBound(catalog.FgBlockerNamed, "the subject binds no capabilities.foregroundComposite.blockerMessage")
			}
			checks = append(checks,
				spec.Converges(ctx, catalog.FgDeletionCompletes, func() judge.Bound {
					// The block is a fault with a duration: it lasts past the
					// 5s of (a) plus W, so that (a) is judged on a claim that
					// waits, not on one that is gone before it must speak.
					select {
					case <-ctx.Done():
					case <-time.After(time.Until(deleted.Add(judge.DeletingWithin + testenv.Current.Window + time.Second))):
					}
					Expect(c.Unblock(ctx)).To(Succeed(), "unblock the deletion")
					return c.Until(testenv.Settle(time.Now()), judge.Gone(key))
				}, ""),
				spec.Judged(catalog.FgDeletingStatus),
				// The premise: the harness's block was in place. A deletion
				// that never reaches it is deletion-completes' to judge.
				oracle.Check{Property: catalog.FgDeletionBlocked, Run: func() error {
					if blockErr != nil {
						return blockErr
					}
					return spec.Judged(catalog.FgDeletionBlocked).Run()
				}},
			)
			spec.Verify(checks...)
		})
	})
}
