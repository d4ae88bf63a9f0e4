package lostevents

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// Healthy waits for the workload created at created to converge before
// any fault (catalog.LostHealthyBefore) and stops the spec at once when it
// does not: nothing after it would test what the spec is about.
func (w *Workload) Healthy(ctx context.Context, created time.Time) {
	GinkgoHelper()
	w.spec.Premise(ctx, catalog.LostHealthyBefore, w.Until(testenv.Settle(created)))
}

// Awaited waits for convergence property p's bound now, and returns its
// check for Verify: p judged when Verify runs, on the evidence as it is
// then (so every premise and property of a spec is judged on the same,
// final evidence, the input `steadystate validate` reads), with the
// figures it measured: "bound", and figure, when set, the convergence
// time.
func Awaited(ctx context.Context, spec *testenv.Spec, p verdict.Property, b judge.Bound, figure string) oracle.Check {
	GinkgoHelper()
	fig := oracle.Figures{"bound": b.Within.String()}
	r, err := spec.Await(ctx, p, b)
	if figure != "" && !r.At.IsZero() {
		fig[figure] = r.Took.Round(time.Millisecond).String()
	}
	judged := spec.Judged(p)
	return oracle.Check{Property: p, Figures: fig, Run: func() error {
		if ctx.Err() != nil {
			return err
		}
		return judged.Run()
	}}
}
