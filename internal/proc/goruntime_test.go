package proc

import (
	"os"
	"runtime/debug"
	"slices"
	"testing"
)

// SetGCPercent sets GCPercent unless the environment sets GOGC, which
// then wins.
func TestSetGCPercentYieldsToTheEnvironment(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))

	t.Setenv("GOGC", "150")
	debug.SetGCPercent(77)
	SetGCPercent()
	if got := debug.SetGCPercent(100); got != 77 {
		t.Errorf("with GOGC=150 set, SetGCPercent changed the target to %d, want it left at 77", got)
	}
	os.Unsetenv("GOGC") // t.Setenv restores it
	SetGCPercent()
	if got := debug.SetGCPercent(100); got != GCPercent {
		t.Errorf("with no GOGC, the target is %d after SetGCPercent, want %d", got, GCPercent)
	}
}

// ComponentEnv adds GOMAXPROCS=1 unless the environment sets GOMAXPROCS,
// which the components then inherit.
func TestComponentsRunOnOneProcessorUnlessGOMAXPROCSIsSet(t *testing.T) {
	t.Setenv("GOMAXPROCS", "") // restored after the test
	if err := os.Unsetenv("GOMAXPROCS"); err != nil {
		t.Fatal(err)
	}
	if got := ComponentEnv(); !slices.Equal(got, []string{"GOMAXPROCS=1"}) {
		t.Errorf("GOMAXPROCS unset: ComponentEnv() = %q, want [GOMAXPROCS=1]", got)
	}
	t.Setenv("GOMAXPROCS", "2")
	if got := ComponentEnv(); len(got) != 0 {
		t.Errorf("GOMAXPROCS=2 in the environment: ComponentEnv() = %q, want nothing added (the environment's value is inherited)", got)
	}
}
