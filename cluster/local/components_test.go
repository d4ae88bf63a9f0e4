package local

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestTokensControllerOffHasNoKey: kube-controller-manager runs its tokens
// controller whenever it has a signing key, --controllers aside; a local
// cluster whose tokens controller is turned off (a subject runs its own)
// must not give it one.
func TestTokensControllerOffHasNoKey(t *testing.T) {
	k := &clusterPKI{ServiceAccountKey: "/sa.key", CACert: "/ca.crt"}
	hasKey := func(args []string) bool {
		return slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--service-account-private-key-file=") })
	}
	if !hasKey(controllerManagerArgs(k, "kc", DefaultControllers, ports{})) {
		t.Error("the default controllers' kube-controller-manager has no signing key")
	}
	off := slices.DeleteFunc(slices.Clone(DefaultControllers), func(c string) bool { return c == "serviceaccount-token-controller" })
	if hasKey(controllerManagerArgs(k, "kc", off, ports{})) {
		t.Error("the tokens controller turned off, kube-controller-manager still has a signing key, so it still runs it")
	}
}

// componentEnv adds GOMAXPROCS=1 unless the environment sets GOMAXPROCS,
// which the components then inherit.
func TestComponentsRunOnOneProcessorUnlessGOMAXPROCSIsSet(t *testing.T) {
	t.Setenv("GOMAXPROCS", "") // restored after the test
	if err := os.Unsetenv("GOMAXPROCS"); err != nil {
		t.Fatal(err)
	}
	if got := componentEnv(); !slices.Equal(got, []string{"GOMAXPROCS=1"}) {
		t.Errorf("GOMAXPROCS unset: componentEnv() = %q, want [GOMAXPROCS=1]", got)
	}
	t.Setenv("GOMAXPROCS", "2")
	if got := componentEnv(); len(got) != 0 {
		t.Errorf("GOMAXPROCS=2 in the environment: componentEnv() = %q, want nothing added (the environment's value is inherited)", got)
	}
}
