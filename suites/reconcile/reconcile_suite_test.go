package reconcile_test

import (
	"os"
	"testing"

	_ "github.com/onsi/ginkgo/v2" // the ginkgo command runs a package whose tests import Ginkgo as a suite

	"github.com/steadystate-dev/steadystate/suites"
)

// TestMain runs the suite as `steadystate suite reconcile` does.
func TestMain(*testing.M) { os.Exit(suites.Main("steadystate")) }
