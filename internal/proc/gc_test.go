package proc

import (
	"os"
	"slices"
	"testing"
)

// A component runs with GCPercent unless the harness's environment sets
// GOGC, which it then inherits as it is.
func TestGCEnvYieldsToTheEnvironment(t *testing.T) {
	t.Setenv("GOGC", "150")
	if got := GCEnv(); got != nil {
		t.Errorf("with GOGC=150 set, GCEnv() = %q, want nothing (the component inherits it)", got)
	}
	os.Unsetenv("GOGC") // t.Setenv restores it
	if got, want := GCEnv(), []string{"GOGC=400"}; !slices.Equal(got, want) {
		t.Errorf("with no GOGC, GCEnv() = %q, want %q", got, want)
	}
}
