package main

import (
	"context"
	"fmt"
	"io"

	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/internal/config"
	"github.com/steadystate-dev/steadystate/runs/matrix"
	"github.com/steadystate-dev/steadystate/runs/upstream"
)

// upstreamBinsCommand builds the upstream releases (all, or those named)
// from the Go module proxy into the upstream folder.
func upstreamBinsCommand(ctx context.Context, cfg config.Settings, args []string, stdout, stderr io.Writer) error {
	releases, err := upstream.Named(args)
	if err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	dir, err := cfg.UpstreamRoot()
	if err != nil {
		return err
	}
	if err := upstream.BuildInto(ctx, dir, releases, stderr); err != nil {
		return err
	}
	fmt.Fprintln(stdout, dir)
	return nil
}

// upstreamConfig is the upstream matrix's configuration, read once from
// the flags, whose defaults are the environment's UPSTREAM_* variables.
type upstreamConfig struct {
	cells []string
	dir   string
	run   matrix.Run
}

func upstreamConfigFrom(e config.Settings, args []string) (upstreamConfig, error) {
	var c upstreamConfig
	cmd := cli.New("upstream", "upstream [--cells C,...] [--repeat N] [--parallel N]",
		"Runs the upstream releases with and without each bug through their subject files (on\n"+
			"PROVIDER local or kind) and fails unless each release with the bug broke exactly what its\n"+
			"subject file binds of the seed's properties and each release with the fix passed, every\n"+
			"time. A seed's two cells run together. The releases are read from UPSTREAM_DIR (make\n"+
			"upstream-bins builds them); the runs go below ARTIFACTS/upstream.")
	cellsFlag := cmd.FS.String("cells", e.Matrix["UPSTREAM"].Cells, "run only these comma-separated `cells`, whole seeds' pairs (UPSTREAM_CELLS; default all)")
	mf := matrix.AddFlags(cmd, e, "UPSTREAM", 1)
	if err := cmd.Parse(args); err != nil {
		return c, err
	}
	if cmd.FS.NArg() > 0 {
		return c, fmt.Errorf("%w: upstream takes flags only (--cells, --repeat, --parallel), not %q", errUsage, cmd.FS.Arg(0))
	}
	var err error
	if c.run, err = mf.Run(cmd, "upstream", "upstream matrix"); err != nil {
		return c, err
	}
	if p := c.run.Provider; p != "" && p != "local" && p != "kind" {
		return c, fmt.Errorf("PROVIDER=%s: the upstream cells run on local (controllers as processes) or kind (in pods, the cells whose subject files have run.pod)", p)
	}
	var names []string
	for _, cell := range upstream.Cells {
		names = append(names, cell.Subject)
	}
	if c.cells, err = cli.List(cmd.Source("cells", "UPSTREAM_CELLS"), *cellsFlag, "a cell of the upstream matrix", names); err != nil {
		return c, err
	}
	c.dir, err = e.UpstreamRoot()
	return c, err
}

// upstreamCommand runs the selected upstream cells through their subject
// files and fails unless each buggy release broke exactly what its
// subject file binds of its seed's properties and each fixed release
// passed, every time.
func upstreamCommand(ctx context.Context, settings config.Settings, args []string, stdout, stderr io.Writer) error {
	cfg, err := upstreamConfigFrom(settings, args)
	if err != nil {
		return cli.Mark(cli.ErrInput, err)
	}
	root, err := upstream.ModuleRoot()
	if err != nil {
		return cli.Mark(cli.ErrInput, err)
	}
	// The suites read the releases from the folder checked here, even
	// when UPSTREAM_DIR was given relative to this folder.
	cfg.run.Env = append(cfg.run.Env, "UPSTREAM_DIR="+cfg.dir)
	cells, err := upstream.Matrix(cfg.cells, cfg.dir, root, cfg.run.Provider)
	if err != nil {
		return cli.Mark(cli.ErrInput, err)
	}
	if _, err := cfg.run.RunAll(ctx, cells, stdout, stderr); err != nil {
		return err
	}
	return matrix.Failure("upstream", "upstream matrix", cells, stdout)
}
