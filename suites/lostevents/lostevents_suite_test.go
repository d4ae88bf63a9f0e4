package lostevents

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/steadystate-dev/steadystate/fixtures"
	"github.com/steadystate-dev/steadystate/reference/refproc"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

func TestLostEvents(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Lost events")
}

// refctl is built once per parallel process (the Go build cache makes the
// later builds instant).
var refctl string

var _ = SynchronizedBeforeSuite(testenv.SetupCluster, func(ctx SpecContext, kubeconfig []byte) {
	testenv.Connect(kubeconfig)
	Expect(fixtures.Apply(ctx, testenv.Get().REST, fixtures.Reference, "reference/crds/*.yaml")).To(Succeed())
	_, file, _, _ := runtime.Caller(0)
	dir, err := os.MkdirTemp("", "lostevents-")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(os.RemoveAll, dir)
	refctl, err = refproc.Build(filepath.Join(filepath.Dir(file), "..", ".."), dir)
	Expect(err).NotTo(HaveOccurred())
})

var _ = SynchronizedAfterSuite(func() {}, testenv.TeardownCluster)
