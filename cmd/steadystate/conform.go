package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/steadystate-dev/steadystate/conformance"
	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/internal/config"
)

// conformConfigFrom reads a conformance run from the flags and the
// environment, once.
func conformConfigFrom(e config.Settings, args []string) (conformance.Run, error) {
	var c conformance.Run
	cmd := cli.New("conform", "conform --subject FILE [--provider local|kind|existing] [--out BUNDLE.tar.gz] [--capabilities C,...]",
		"Run every suite the subject file's capabilities allow (or those of --capabilities) against the\n"+
			"controller it describes, once, and write a results bundle with a summary; the bundle's digest,\n"+
			"published apart, lets anyone check it with steadystate verify. See docs/conformance.md.")
	fs := cmd.FS
	fs.StringVar(&c.Subject, "subject", "", "the subject file")
	fs.StringVar(&c.Out, "out", "", "the bundle to write")
	fs.StringVar(&c.Provider, "provider", e.Provider, "local, kind or existing (PROVIDER)")
	var only cli.Strings
	fs.Var(&only, "capabilities", "run only the suites of these bound capabilities (comma-separated, or repeat the flag)")
	if err := cmd.Parse(args); err != nil {
		return c, err
	}
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("%w: conform takes flags only (--subject FILE, --provider, --out), not %q", errUsage, fs.Arg(0))
	case c.Subject == "":
		return c, fmt.Errorf("%w: conform needs --subject FILE, the subject file that describes the controller", errUsage)
	}
	r, err := conformance.New(e, c.Subject, c.Out, c.Provider)
	for _, o := range only {
		for _, name := range strings.Split(o, ",") {
			if name = strings.TrimSpace(name); name != "" {
				r.Only = append(r.Only, name)
			}
		}
	}
	return r, err
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
