package proc

import (
	"os"
	"runtime/debug"
	"strconv"
)

// GCPercent is the Go garbage collector's target (GOGC) the harness's
// own long-lived Go processes run with: the local cluster's components
// and the suite processes, never a subject. At Go's default, 100, a
// collection comes each time the heap doubles; these processes keep
// little live memory and make much short-lived garbage (requests, watch
// events, rebuilt histories), so they collect often, and on a 2-core
// machine that CPU is taken from the schedules. 400 collects about a
// fifth as often, for a heap up to five times the live one.
// docs/figures.md has what it changed in a hunt (in the cluster's
// components, nothing measurable).
const GCPercent = 400

// gcSet reports whether GOGC is in the harness's environment: then it
// wins, and every process inherits it.
func gcSet() bool {
	_, set := os.LookupEnv("GOGC")
	return set
}

// GCEnv is what a started component adds to its environment for
// GCPercent: nothing when GOGC is set already.
func GCEnv() []string {
	if gcSet() {
		return nil
	}
	return []string{"GOGC=" + strconv.Itoa(GCPercent)}
}

// SetGCPercent sets this process's target to GCPercent, unless GOGC is
// set. The environment is left alone: the subjects a suite process
// starts inherit it and keep Go's default.
func SetGCPercent() {
	if !gcSet() {
		debug.SetGCPercent(GCPercent)
	}
}
