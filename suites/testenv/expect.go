package testenv

import (
	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL reads best unqualified.
)

// ExpectValid fails the spec with the oracle's verdict as the message: one
// line per broken property, stable across runs so failures group together
// (no error structure dump).
func ExpectValid(err error) {
	GinkgoHelper()
	if err != nil {
		Fail(err.Error())
	}
}
