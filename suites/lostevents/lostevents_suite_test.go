package lostevents

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/steadystate-dev/steadystate/suites/subject"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

func TestLostEvents(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Lost events")
}

var _ = SynchronizedBeforeSuite(func(ctx SpecContext) []byte {
	if subject.Kind() == "replicaset" {
		return subject.WithoutReplicaSetController(ctx)
	}
	return testenv.SetupCluster(ctx)
}, subject.Connect)

var _ = SynchronizedAfterSuite(func() {}, testenv.TeardownCluster)
