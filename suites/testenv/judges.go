package testenv

import (
	"context"
	"errors"

	. "github.com/onsi/ginkgo/v2"

	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// Judges declares, as a decorator of an It, the properties the spec must
// judge: one Ginkgo label per property (verdict.Declaration), so
// Ginkgo's report names them even when the spec never reaches its checks.
// A spec that passes without a record of each is an error
// (verdict.Classify); one the binding cannot judge is recorded NotBound.
func Judges(ps ...verdict.Property) Labels {
	return Label(verdict.Declarations(ps...)...)
}

// IsContextErr reports whether err is, or wraps, a context's end
// (context.Canceled or context.DeadlineExceeded).
func IsContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
