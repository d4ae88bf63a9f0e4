package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/steadystate-dev/steadystate/conformance"
	"github.com/steadystate-dev/steadystate/internal/config"
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
	}
	return conformance.New(e, c.Subject, c.Out, c.Provider)
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
