package explore

import (
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// A schedule that deleted a pod owes convergence within the longer of the
// expectation timeout and the binding's replaceWithin, as the lost-events
// storm does: before, a controller that backs off before it replaces (the
// Job controller) broke converges-after-faults in exploration while the
// storm spec passed it. A schedule that deleted nothing keeps the
// expectation timeout's bound.
func TestRecoveryAllowsReplacementAfterAPodDeletion(t *testing.T) {
	at := time.Date(2026, 11, 26, 13, 0, 0, 0, time.UTC)
	margin := testenv.Current.RecoveryMargin
	for _, tc := range []struct {
		deleted bool
		want    time.Duration
	}{
		{false, 2*time.Second + margin},
		{true, 80*time.Second + margin},
	} {
		if got := recoveryBound(at, 2*time.Second, 80*time.Second, tc.deleted).Within; got != tc.want {
			t.Errorf("a pod deleted: %v: bound %s, want %s", tc.deleted, got, tc.want)
		}
	}
}
