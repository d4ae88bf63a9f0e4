package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/scaffold"
)

// initCommand drafts a subject file binding the steady-state capability:
// from a kubebuilder project's folder (building its manager), or from a
// program, CRDs and sample objects. It never overwrites a file.
func initCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := cli.New("init", "init [--out FILE] [--no-build] DIR | init --command PROGRAM --sample FILE... [--crd FILE...] [--name NAME] [--out FILE]",
		"Draft a subject file that binds the steady-state capability, every field explained, and that\n"+
			"steadystate conform runs as it is: from a kubebuilder project (config/crd/bases, config/samples,\n"+
			"its manager's main package, which is built into DIR/bin/manager, and the manager's environment\n"+
			"and arguments in config/manager/manager.yaml), or from a controller's program with its CRDs\n"+
			"and sample objects. What it reads: docs/subject-files.md.")
	out := c.FS.String("out", "steadystate.yaml", "the subject file to write (never overwritten)")
	noBuild := c.FS.Bool("no-build", false, "do not build a kubebuilder project's manager (bin/manager must then exist)")
	program := c.FS.String("command", "", "the controller's program (instead of a kubebuilder project)")
	name := c.FS.String("name", "", "the subject's name (default: the project's, or the program's file name)")
	var crds, samples cli.Strings
	c.FS.Var(&crds, "crd", "a CRD manifest to apply first (repeat the flag for more)")
	c.FS.Var(&samples, "sample", "a manifest of an object the controller reconciles (repeat the flag for more)")
	if err := c.Parse(args); err != nil {
		return err
	}
	var p scaffold.Project
	var err error
	switch {
	case *program != "" && c.FS.NArg() > 0:
		return fmt.Errorf("%w: init takes a kubebuilder project's folder or --command, not both", errUsage)
	case *program != "":
		n := *name
		if n == "" {
			n = filepath.Base(*program)
		}
		p, err = scaffold.Files(n, *program, crds, samples)
	case c.FS.NArg() == 1:
		if len(crds)+len(samples) > 0 {
			return fmt.Errorf("%w: --crd and --sample go with --command; a kubebuilder project's come from its config/ folder", errUsage)
		}
		p, err = scaffold.Kubebuilder(c.FS.Arg(0))
		if err == nil && *name != "" {
			p.Name = *name
		}
	default:
		return fmt.Errorf("%w: init takes one kubebuilder project's folder, or --command PROGRAM with --sample FILE", errUsage)
	}
	if err != nil {
		return err
	}
	if err := p.WriteFile(ctx, *out, *noBuild, stderr); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "init: wrote %s (binds reconciledObjects: %d object file(s), %d CRD file(s)); run it with: steadystate conform --subject %s\n", *out, len(p.Samples), len(p.CRDs), *out)
	return nil
}
