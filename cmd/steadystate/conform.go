package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/steadystate-dev/steadystate/cluster"
	"github.com/steadystate-dev/steadystate/cluster/kind"
	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/conformance"
	"github.com/steadystate-dev/steadystate/internal/config"
	"github.com/steadystate-dev/steadystate/internal/testenv"
)

// conformConfigFrom reads a conformance run from the flags and the
// environment, once.
func conformConfigFrom(e config.Settings, args []string) (conformance.Run, error) {
	var c conformance.Run
	fs := flag.NewFlagSet("conform", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.Subject, "subject", "", "the subject file")
	fs.StringVar(&c.Out, "out", "", "the bundle to write")
	fs.StringVar(&c.Provider, "provider", e.Provider, "local, kind or existing (PROVIDER)")
	if err := fs.Parse(args); err != nil {
		return c, fmt.Errorf("%w: conform: %w", errUsage, err)
	}
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("%w: conform takes flags only (--subject FILE, --provider, --out), not %q", errUsage, fs.Arg(0))
	case c.Subject == "":
		return c, fmt.Errorf("%w: conform needs --subject FILE, the subject file that describes the controller", errUsage)
	case c.Provider == "":
		c.Provider = cluster.Local
	case !slices.Contains(cluster.Providers, c.Provider):
		return c, fmt.Errorf("--provider %s: conform runs on local (a control plane of processes here), kind (the controller in pods) or existing (the cluster of $KUBECONFIG, or the one this pod runs in)", c.Provider)
	}
	var err error
	if c.Matrix, err = newMatrixRun(e, "conform", "conformance", "CONFORM", 2); err != nil {
		return c, err
	}
	if c.Out == "" {
		c.Out = filepath.Join(filepath.Dir(c.Matrix.Root), "conformance.tar.gz")
	}
	if c.Subject, err = filepath.Abs(c.Subject); err != nil {
		return c, err
	}
	// The cache holds the upstream releases and the local control plane:
	// a run in a pod, on an existing cluster, may have neither.
	c.UpstreamDir, _ = e.UpstreamRoot()
	c.Version, c.BinDir = e.KubeVersion, e.KubeBinDir
	c.BuildBins = c.Provider == cluster.Local && c.BinDir == ""
	if root, err := e.CacheRoot(); c.BinDir == "" && err == nil {
		c.BinDir = local.BinDirFor(root, c.Version)
	}
	c.Kubernetes = c.Version
	switch c.Provider {
	case cluster.Kind:
		c.Kubernetes = cmp.Or(e.KindNodeImage, kind.DefaultImage(c.Version))
	case cluster.Existing:
		c.Kubernetes = "existing cluster"
	}
	c.Matrix.Provider = c.Provider
	c.Matrix.Progress = true
	// Every spec keeps its evidence, passed or not: the bundle's every
	// judged verdict can then be judged again (steadystate verify).
	c.Matrix.Env = append(c.Matrix.Env, "PROVIDER="+c.Provider, "UPSTREAM_DIR="+c.UpstreamDir, "STEADYSTATE_KEEP_EVIDENCE=1")
	c.Pods = c.Provider == cluster.Kind || e.SubjectPlacement == testenv.Pods
	return c, nil
}

// conformCommand runs every suite the subject file's capabilities allow
// against it, once, and writes one results bundle with a summary.
func conformCommand(ctx context.Context, cfg config.Settings, args []string, stdout, stderr io.Writer) error {
	c, err := conformConfigFrom(cfg, args)
	if err != nil {
		return err
	}
	if err := c.Load(ctx, stderr); err != nil {
		return err
	}
	return c.Run(ctx, stdout, stderr)
}
