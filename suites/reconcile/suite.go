package reconcile

import (
	"flag"

	"github.com/steadystate-dev/steadystate/suites/subject"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// Title is the suite's name in reports.
const Title = "Reconciliation"

// Flags adds the suite's -steadystate.part flag to fs and returns what
// declares the suite in Ginkgo's global suite for the part it names: its
// cluster lifecycle, then its specs (the whole suite when none is named).
func Flags(fs *flag.FlagSet) (register func()) {
	var part testenv.Part
	fs.Var(&part, testenv.PartFlag, "run part `K/N` of the suite: the two clean reference runs, then every Nth spec after them from the Kth (make e2e splits the suite in two so when suites run side by side)")
	return func() {
		subject.Lifecycle()
		steadySpecs(part)
	}
}
