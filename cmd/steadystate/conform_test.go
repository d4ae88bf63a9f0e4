package main

import (
	"context"
	"io"
	"slices"
	"strings"
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

// --capabilities takes a comma-separated list, and a capability the
// subject file does not bind is refused before anything starts, naming
// the ones it binds.
func TestConformCapabilitiesMustBeBound(t *testing.T) {
	t.Setenv("ARTIFACTS", t.TempDir())
	c, err := conformConfigFrom(config.FromEnv(), []string{"--subject", "../../fixtures/zoo/deployment.yaml", "--capabilities", "reconciledObjects, leaderElected"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Only, []string{"reconciledObjects", "leaderElected"}) {
		t.Fatalf("--capabilities read as %q", c.Only)
	}
	c.BuildBins = false
	err = c.Load(context.Background(), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--capabilities leaderElected: subject file") || !strings.Contains(err.Error(), "expected some of reconciledObjects, scalableWorkload") {
		t.Errorf("a capability the file does not bind: %v", err)
	}
	c.Only = []string{"reconciledObjects"}
	if err := c.Load(context.Background(), io.Discard); err != nil {
		t.Errorf("a bound capability: %v", err)
	}
}
