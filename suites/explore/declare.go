package explore

import (
	"fmt"
	"path/filepath"
	"strconv"

	. "github.com/onsi/ginkgo/v2"

	"github.com/steadystate-dev/steadystate/chaos/schedule"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// judged are the properties every schedule of a capability is judged on,
// whatever its steps did (a driver's judge may judge more: a movable
// schedule's move or held delete, a composite's successor, a reconciledObjects
// schedule's changes left until the faults were recovered, on settles).
var judged = map[string][]verdict.Property{
	schedule.Scalable:  {catalog.LostHealthyBefore, catalog.LostAfterFaults, catalog.LostLaterScale, catalog.LostNoOvershoot},
	schedule.Leader:    {catalog.LeaderOneWriter},
	schedule.Composite: {catalog.FgReadyBefore, catalog.FgDeletionBlocked, catalog.FgBlockerNamed, catalog.FgDeletionCompletes, catalog.FgDeletingStatus},
	schedule.Movable:   {catalog.FinRanBefore, catalog.FinP2, catalog.FinP3, catalog.FinP4},
	schedule.Steady:    {catalog.SteadyRecovers, catalog.SteadyQuiescent, catalog.SteadySameEndState, catalog.SteadyNoChurn, catalog.SteadyNoFinalizer, catalog.SteadyLeavesNothing, catalog.SteadyNoPanic},
}

// judges declares what a schedule of capability is judged on, the premise
// that its fault steps acted first; a replay's
// capability is its schedule file's (none when the file does not load:
// the spec then fails on it).
func judges(capability, replay string) Labels {
	if replay != "" {
		if s, err := schedule.Load(replay); err == nil {
			capability = s.Capability
		}
	}
	return testenv.Judges(append([]verdict.Property{catalog.ExploreStepsActed}, judged[capability]...)...)
}

// replaySpec names run i (from 0) of a replay's n: its number padded to
// the width of n, so that reports listing the runs by name list them in
// order (run 02 before run 10).
func replaySpec(replay string, i, n int) string {
	return fmt.Sprintf("replays %s (run %0*d of %d)", filepath.Base(replay), len(strconv.Itoa(n)), i+1, n)
}
