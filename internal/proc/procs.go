package proc

import (
	"os"
	"runtime"
)

// Procs is how many threads at once run a suite process's Go code
// (GOMAXPROCS). A suite process mostly waits (on its subject, its
// cluster, its windows) and wakes often for little: a watch event, a
// proxied request, a poll. With more than one, each wake-up and each
// sleep had the runtime look for work on the other and in the network
// poller, and in a profile of a 12-process hunt on 2 cores the runtime's
// scheduler and its monitor thread took about a quarter of the suite
// processes' CPU. The processes of a run side by side already use the
// cores. One keeps the judges' own work in order (each spec judges its
// properties in turn) and the proxies' at a few thousand requests a
// second, far above what a subject sends.
const Procs = 1

// SetProcs sets this process's GOMAXPROCS to Procs, unless GOMAXPROCS is
// in the environment: then it wins. The environment is left alone, so
// the subjects and components a suite process starts keep the Go
// runtime's default (one a core): a subject's own concurrency is what is
// tested.
func SetProcs() {
	if _, set := os.LookupEnv("GOMAXPROCS"); !set {
		runtime.GOMAXPROCS(Procs)
	}
}
