package lostevents

import (
	"github.com/steadystate-dev/steadystate/internal/subject"
)

// Title is the suite's name in reports.
const Title = "Lost events"

// Register declares the suite in Ginkgo's global suite: its cluster
// lifecycle, then its specs. A process registers one suite and runs it:
// its test binary (TestMain, for ginkgo and make e2e) or
// `steadystate suite lostevents`.
func Register() {
	subject.Lifecycle()
	lostEventSpecs()
	stormSpecs()
}
