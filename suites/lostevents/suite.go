package lostevents

import (
	"github.com/steadystate-dev/steadystate/suites/subject"
)

// Title is the suite's name in reports.
const Title = "Lost events"

// Register declares the suite in Ginkgo's global suite: its cluster
// lifecycle, then its specs. A process registers one suite and runs it:
// its test binary (suites.Main, for go test and ginkgo) or
// `steadystate suite lostevents` (make e2e).
func Register() {
	subject.Lifecycle()
	lostEventSpecs()
	stormSpecs()
}
