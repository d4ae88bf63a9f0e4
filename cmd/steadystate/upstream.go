package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/steadystate-dev/steadystate/internal/config"
	"github.com/steadystate-dev/steadystate/matrix"
	"github.com/steadystate-dev/steadystate/reports"
	"github.com/steadystate-dev/steadystate/subjectfile"
	"github.com/steadystate-dev/steadystate/upstream"
)

// upstreamBinsCommand builds the upstream releases (all, or those named)
// from the Go module proxy into the upstream folder.
func upstreamBinsCommand(ctx context.Context, cfg config.Settings, args []string, stdout, stderr io.Writer) error {
	releases := upstream.Releases
	if len(args) > 0 {
		releases = nil
		for _, name := range args {
			r, ok := upstream.Lookup(name)
			if !ok {
				var names []string
				for _, r := range upstream.Releases {
					names = append(names, r.Name)
				}
				return fmt.Errorf("%w: %q is not an upstream release; known: %s", errUsage, name, strings.Join(names, ", "))
			}
			releases = append(releases, r)
		}
	}
	dir, err := cfg.UpstreamRoot()
	if err != nil {
		return err
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "upstream-bins: %d release(s) into %s\n", len(releases), dir)
	if err := (upstream.Builder{Dir: dir, RepoRoot: root, Progress: stderr}).Build(ctx, releases); err != nil {
		return err
	}
	fmt.Fprintln(stdout, dir)
	return nil
}

// moduleRoot is the steadystate module's folder: the wrappers of the
// upstream builds live in it.
func moduleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && slices.Contains(strings.Fields(string(data)), "github.com/steadystate-dev/steadystate") {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("run this in the steadystate repository (%s is not in it): the upstream builds use its fixtures/upstream folder", wd)
		}
	}
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
	cmd := newCommand("upstream", "upstream [--cells C,...] [--repeat N] [--parallel N]",
		"Runs the upstream releases with and without each bug through their subject files (on\n"+
			"PROVIDER local or kind) and fails unless each release with the bug broke exactly what its\n"+
			"subject file binds of the seed's properties and each release with the fix passed, every\n"+
			"time. A seed's two cells run together. The releases are read from UPSTREAM_DIR (make\n"+
			"upstream-bins builds them); the runs go below ARTIFACTS/upstream.")
	cellsFlag := cmd.fs.String("cells", e.Matrix["UPSTREAM"].Cells, "run only these comma-separated `cells`, whole seeds' pairs (UPSTREAM_CELLS; default all)")
	mf := addMatrixFlags(cmd, e, "UPSTREAM", 1)
	if err := cmd.parse(args); err != nil {
		return c, err
	}
	if cmd.fs.NArg() > 0 {
		return c, fmt.Errorf("%w: upstream takes flags only (--cells, --repeat, --parallel), not %q", errUsage, cmd.fs.Arg(0))
	}
	var err error
	if c.run, err = mf.matrixRun(cmd, "upstream", "upstream matrix"); err != nil {
		return c, err
	}
	if p := c.run.Provider; p != "" && p != "local" && p != "kind" {
		return c, fmt.Errorf("PROVIDER=%s: the upstream cells run on local (controllers as processes) or kind (in pods, the cells whose subject files have run.pod)", p)
	}
	var names []string
	for _, cell := range upstream.Cells {
		names = append(names, cell.Subject)
	}
	if c.cells, err = list(cmd.source("cells", "UPSTREAM_CELLS"), *cellsFlag, "a cell of the upstream matrix", names); err != nil {
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
		return err
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	// The suites read the releases from the folder checked here, even
	// when UPSTREAM_DIR was given relative to this folder.
	cfg.run.Env = append(cfg.run.Env, "UPSTREAM_DIR="+cfg.dir)
	cells, err := cfg.matrix(root)
	if err != nil {
		return err
	}
	ok, err := cfg.run.RunAll(ctx, cells, stdout, stderr)
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("the upstream matrix failed: a release with the fix did not pass, or a release with the bug did not break exactly its seed's properties every time")
	}
	return nil
}

// matrix is the selected cells as matrix cells, each expecting what its
// subject file binds. It refuses a matrix that could pass without showing
// anything: no cell, half a seed's pair, or a cell that cannot run where
// the matrix runs.
func (cfg upstreamConfig) matrix(root string) ([]reports.Cell, error) {
	var selected []upstream.Cell
	for _, c := range upstream.Cells {
		if cfg.cells == nil || slices.Contains(cfg.cells, c.Subject) {
			selected = append(selected, c)
		}
	}
	if err := upstream.Check(selected); err != nil {
		return nil, err
	}
	builder := upstream.Builder{Dir: cfg.dir}
	var cells []reports.Cell
	for _, c := range selected {
		for _, name := range c.Releases {
			r, _ := upstream.Lookup(name)
			if _, ok := builder.Built(r); !ok {
				return nil, fmt.Errorf("upstream cell %s needs release %s, which is not built in %s: run make upstream-bins (or set UPSTREAM_DIR)", c.Subject, name, cfg.dir)
			}
		}
		m, f, err := c.Matrix(root, subjectfile.Options{UpstreamDir: cfg.dir})
		if err != nil {
			return nil, err
		}
		if cfg.run.Provider == "kind" && f.Run.Pod == nil {
			return nil, fmt.Errorf("upstream cell %s cannot run on kind: its subject file has no run.pod; leave its seed's cells out of the selection, or run on local", c.Subject)
		}
		cells = append(cells, m)
	}
	return cells, nil
}
