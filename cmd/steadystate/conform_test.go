package main

import (
	"slices"
	"testing"

	"github.com/steadystate-dev/steadystate/internal/config"
)

// Every suite conform runs keeps every spec's evidence, passed or not:
// verify re-judges them all from it.
func TestConformKeepsEverySpecsEvidence(t *testing.T) {
	t.Setenv("ARTIFACTS", t.TempDir())
	c, err := conformConfigFrom(config.FromEnv(), []string{"--subject", "../../fixtures/subjects/replicaset.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(c.Matrix.Env, "STEADYSTATE_KEEP_EVIDENCE=1") {
		t.Errorf("the suites' environment %q does not keep every spec's evidence", c.Matrix.Env)
	}
}
