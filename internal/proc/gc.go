package proc

import (
	"os"
	"runtime/debug"
)

// GCPercent is the Go garbage collector's target (GOGC) the suite
// processes run with. At Go's default, 100, a collection comes each time
// the heap doubles; a suite process keeps little live memory and makes
// much short-lived garbage (watch events, rebuilt histories), so it
// collects often, and on a 2-core machine that CPU is taken from the
// schedules. 400 collects about a fifth as often, for a heap up to five
// times the live one. The local cluster's components keep Go's default:
// at 400 they used as much CPU in a hunt (docs/figures.md), and each API
// server of the twelve clusters of CI's reconcile self-test held about
// 620 MB resident.
const GCPercent = 400

// SetGCPercent sets this process's target to GCPercent, unless GOGC is
// in the environment: then it wins. The environment is left alone, so
// the subjects and components a suite process starts keep Go's default.
func SetGCPercent() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(GCPercent)
	}
}
