package testenv

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"

	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/verdict"
)

// Premise waits for convergence premise p's bound and, when p did not
// hold, stops the spec at once with its own reason: p's record, judged as
// Verify judges it, attached to the spec (an error of the spec, "assumption
// … did not hold", never a finding).
func Premise(ctx context.Context, p verdict.Property, b judge.Bound) {
	GinkgoHelper()
	_, err := Await(ctx, p, b)
	if err == nil {
		return
	}
	if ctx.Err() == nil {
		Verify(Judged(p))
	}
	// Verify failed the spec, unless the judge of the evidence disagreed
	// with the wait (or the spec was interrupted): stop anyway.
	Fail(fmt.Sprintf("assumption %s (%s) did not hold: %v", p.ID, p.Sentence, err))
}
