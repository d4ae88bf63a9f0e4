package controlplane

import (
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// Title is the suite's name in reports.
const Title = "Control plane"

// Register declares the suite in Ginkgo's global suite: its cluster
// lifecycle, then its specs. A process registers one suite and runs it:
// its test binary (suites.Main, for go test and ginkgo) or
// `steadystate suite controlplane` (make e2e).
func Register() {
	testenv.Lifecycle(testenv.SetupCluster, testenv.Connect)
	garbageCollectorSpecs()
	replicaSetSpecs()
}
