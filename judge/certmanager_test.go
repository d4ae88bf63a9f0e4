package judge

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// TestCertManagerReissueAfterWatchReset re-judges the hunt's finding on
// cert-manager v1.21.2 (fixtures/zoo/operators/cert-manager.yaml, explore
// seed 1, schedule 003; docs/zoo/triage.md): after a partition reset its watches,
// its Secret informer came back last, and the trigger controller re-issued
// the root CA twice for a Secret its cache did not yet hold. The end state
// differs from the clean runs' on the CA's revision and its requests, and
// the extra requests are churn.
func TestCertManagerReissueAfterWatchReset(t *testing.T) {
	file := filepath.Join("certmanager", "explore-cert-manager-steady-reissue.json")
	e := readEvidence(t, file)
	got := judged(t, catalog.SteadySameEndState.ID, e)
	if got.Outcome != verdict.Broken || !strings.Contains(got.Reason, "Certificate/root-ca status.revision: 1 in the reference, 3 after the faults") {
		t.Errorf("same-end-state: %s %q, want broken on root-ca's revision", got.Outcome, got.Reason)
	}
	if got := judged(t, catalog.SteadyNoChurn.ID, e); got.Outcome != verdict.Broken || !strings.Contains(got.Reason, "it created 6 certificaterequests.cert-manager.io, the reference run 3") {
		t.Errorf("no-churn: %s %q, want broken on the extra CertificateRequests", got.Outcome, got.Reason)
	}
}
