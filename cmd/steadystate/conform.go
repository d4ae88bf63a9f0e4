package main

import (
	"context"
	"fmt"
	"io"

	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/internal/config"
	"github.com/steadystate-dev/steadystate/internal/renamed"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/runs/conformance"
)

// conformConfigFrom reads a conformance run from the flags and the
// environment, once.
func conformConfigFrom(e config.Settings, args []string) (conformance.Run, error) {
	var c conformance.Run
	cmd := cli.New("conform", "conform --subject FILE [--provider local|kind|existing] [--out BUNDLE.tar.gz] [--capabilities C,...] [--fail-on-gaps]",
		"Run every suite the subject file's capabilities allow (or those of --capabilities) against the\n"+
			"controller it describes, once, and write a results bundle with a summary; the bundle's digest,\n"+
			"published apart, lets anyone check it with steadystate verify. Evidence, report and bundle go\n"+
			"to $ARTIFACTS (default _artifacts/); LOCAL_NODES=on gives the local cluster a scheduler and\n"+
			"simulated nodes. The last line is the result, PASSED, PASSED WITH GAPS, NOT PASSED or ERROR, and\n"+
			"the exit code says which (docs/conformance.md, \"Exit codes\"). See docs/settings.md.")
	fs := cmd.FS
	fs.StringVar(&c.Subject, "subject", "", "the subject file")
	fs.StringVar(&c.Out, "out", "", "the bundle to write")
	fs.StringVar(&c.Provider, "provider", e.Provider, "local, kind or existing (PROVIDER)")
	only := fs.String("capabilities", "", "run only the suites of these bound capabilities (comma-separated); the others are gaps")
	failOnGaps := fs.Bool("fail-on-gaps", false, "fail a pass with gaps (exit 4)")
	if err := cmd.Parse(args); err != nil {
		return c, err
	}
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("%w: conform takes flags only (--subject FILE, --provider, --out), not %q", errUsage, fs.Arg(0))
	case c.Subject == "":
		return c, fmt.Errorf("%w: conform needs --subject FILE, the subject file that describes the controller", errUsage)
	}
	var capabilities []string
	for _, s := range catalog.Suites {
		capabilities = append(capabilities, s.Capability)
	}
	r, err := conformance.New(e, c.Subject, c.Out, c.Provider)
	if err != nil {
		return r, err
	}
	r.FailOnGaps = *failOnGaps
	r.Only, err = cli.List("--capabilities", cli.Renamed(*only, renamed.CurrentCapability), "a capability", capabilities)
	return r, err
}

// conformCommand runs every suite the subject file's capabilities allow
// against it, once, and writes one results bundle with a summary.
func conformCommand(ctx context.Context, cfg config.Settings, args []string, stdout, stderr io.Writer) error {
	c, err := conformConfigFrom(cfg, args)
	if err != nil {
		return cli.Mark(cli.ErrInput, err)
	}
	if err := c.Load(ctx, stderr); err != nil {
		return err
	}
	return c.Run(ctx, stdout, stderr)
}
