package reconcile

import "github.com/steadystate-dev/steadystate/suites/subject"

// Title is the suite's name in reports.
const Title = "Reconciliation"

// Register declares the suite in Ginkgo's global suite: its cluster
// lifecycle, then its specs.
func Register() {
	subject.Lifecycle()
	steadySpecs()
}
