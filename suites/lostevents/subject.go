package lostevents

import (
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL reads best unqualified.
	. "github.com/onsi/gomega"    //nolint:revive // as above.

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/reference/refproc"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// expectationTimeout is the reference subject's --expectation-timeout:
// short, so the suite stays fast (upstream's is 5 minutes).
const expectationTimeout = 2 * time.Second

// startSubject runs refctl workload in the mode SUBJECT_BUG names, one
// replica behind the fault proxy, stopped when the spec ends.
func startSubject() (*refproc.Subject, chaos.Target) {
	env := testenv.Get()
	s, err := refproc.Start(refproc.Options{
		Binary: refctl, Command: "workload", Replicas: 1, Upstream: env.REST, Dir: GinkgoT().TempDir(),
		Args: []string{"--leader-elect=false", "--expectation-timeout=" + expectationTimeout.String(), "--bug=" + os.Getenv("SUBJECT_BUG")},
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		s.Stop()
		if CurrentSpecReport().Failed() {
			for _, r := range s.Replicas {
				AddReportEntry(r.Identity+" log", ReportEntryVisibilityFailureOrVerbose, tailFile(r.Process.LogPath()))
			}
		}
	})
	return s, chaos.Target{Kube: env.Kube, Replicas: s.Replicas}
}

func tailFile(path string) string {
	data, _ := os.ReadFile(path)
	if len(data) > 4000 {
		data = data[len(data)-4000:]
	}
	return string(data)
}
