package foreground

import (
	"context"
	"errors"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/suites/subject"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

func sameNameSpecs() {
	Describe("A foreground-deleted composite under same-name races", Label("capability:composite"), func() {
		var (
			ns   string
			spec *testenv.Spec
		)
		BeforeEach(func(ctx SpecContext) { ns, spec = testenv.NewNamespace(ctx, "samename"), testenv.Begin() })

		It("settles concurrent creates of one claim, and a successor for the same external name while the old claim deletes", Label("fault:concurrent-create"), testenv.Judges(catalog.FgOneCreateWins, catalog.FgReadyBefore, catalog.FgOldDeleting, catalog.FgSuccessorReady, catalog.FgNoDeleteInUse), func(ctx SpecContext) {
			if subject.Composite().Claims().Block.Resource != "" {
				Skip("same-name races need an external name the harness controls: subject files bind none yet (only the reference controller's external system)")
			}
			c := StartComposition(ctx, spec, ns)
			name := ns + "-db"
			tl := spec.Timeline()
			race := &chaos.ConcurrentCreate{N: 3, Resource: c.claims, Object: c.claim("old", name)}
			// A race that fails is in the timeline, for the premise; one
			// that cannot run at all is the harness's.
			if _, err := chaos.Inject(ctx, tl, race, chaos.Target{Dynamic: c.dyn}); errors.Is(err, chaos.ErrUnavailable) {
				Fail(err.Error())
			}
			spec.Premise(ctx, catalog.FgReadyBefore, c.Until(testenv.Settle(time.Now()), judge.Ready(ns+"/old")))
			judge.FactExternalName.Set(spec, name)
			judge.FactOldOwner.Set(spec, c.ManagedUID(ctx, "old"))
			judge.FactClaim.Set(spec, ns+"/old")

			By("deleting the old claim slowly and creating a successor for the same external name while it deletes")
			Expect(c.ext.SlowDeletes(ctx, 2*time.Second)).To(Succeed())
			c.Delete(ctx, "old")
			created := c.Succeed(ctx, "old", "new", name)
			spec.Verify(append([]oracle.Check{
				spec.Judged(catalog.FgOneCreateWins),
				spec.Judged(catalog.FgReadyBefore),
			}, c.SuccessorChecks(ctx, "old", "new", func() time.Time { return created })...)...)
		})
	})
}

// Succeed creates claim next for externalName once the managed object of
// claim old is deleting (the premise judges both from the histories), or
// after 15s, and returns when.
func (c *Composition) Succeed(ctx context.Context, old, next, externalName string) time.Time {
	_ = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 15*time.Second, true, func(context.Context) (bool, error) {
		return c.ManagedDeleting(old), nil
	})
	c.Create(ctx, next, externalName)
	created := time.Now()
	judge.FactSuccessorCreated.Set(c.spec, created)
	return created
}

// SuccessorChecks judge claim next, created for the external name of claim
// old while old was deleting (Succeed): old's claim and managed object
// were deleting then (the premise); within T of since (asked when the
// check runs, after the checks before it), next is Ready and old gone,
// with the external resource owned by next's managed object; and old's
// managed object never deleted it after next's used it. The caller
// records the facts of old (judge.FactClaim, FactExternalName,
// FactOldOwner).
func (c *Composition) SuccessorChecks(ctx context.Context, old, next string, since func() time.Time) []oracle.Check {
	var newUID string
	owner := func() {
		if newUID == "" {
			newUID = c.ManagedUID(ctx, next)
		}
		judge.FactNewOwner.Set(c.spec, newUID)
	}
	successor := c.spec.Judged(catalog.FgSuccessorReady)
	return []oracle.Check{
		c.spec.Judged(catalog.FgOldDeleting),
		{Property: catalog.FgSuccessorReady, Run: func() error {
			want := judge.All(judge.Ready(c.ns+"/"+next), judge.Gone(c.ns+"/"+old))
			if _, err := c.spec.Await(ctx, catalog.FgSuccessorReady, c.Until(testenv.Settle(since()), want)); err == nil {
				owner()
			}
			return successor.Run()
		}},
		{Property: catalog.FgNoDeleteInUse, Run: func() error {
			owner()
			return c.spec.Judged(catalog.FgNoDeleteInUse).Run()
		}},
	}
}
