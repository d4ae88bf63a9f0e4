package proc

import (
	"os"
	"runtime"
	"testing"
)

// SetProcs sets Procs unless the environment sets GOMAXPROCS, which then
// wins, and leaves the environment as it was (the processes a suite
// starts inherit it).
func TestSetProcsYieldsToTheEnvironment(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))

	t.Setenv("GOMAXPROCS", "3")
	runtime.GOMAXPROCS(3)
	SetProcs()
	if got := runtime.GOMAXPROCS(0); got != 3 {
		t.Errorf("with GOMAXPROCS=3 set, SetProcs changed it to %d, want it left at 3", got)
	}
	os.Unsetenv("GOMAXPROCS") // t.Setenv restores it
	runtime.GOMAXPROCS(3)
	SetProcs()
	if got := runtime.GOMAXPROCS(0); got != Procs {
		t.Errorf("with no GOMAXPROCS, it is %d after SetProcs, want %d", got, Procs)
	}
	if v, set := os.LookupEnv("GOMAXPROCS"); set {
		t.Errorf("SetProcs put GOMAXPROCS=%s in the environment; the subjects would inherit it", v)
	}
}
