package proc

import (
	"os"
	"runtime/debug"
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
