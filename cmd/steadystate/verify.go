package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/steadystate-dev/steadystate/rejudge"
)

// verifyCommand checks a results bundle (every file against the
// manifest's sums, and the manifest against the digest published apart
// from it, --digest) and re-judges every verdict offline from the
// evidence its spec kept, passed and failed specs alike, printing them as
// the run did. It fails when the bundle is not intact, when a report or
// evidence file is older than the run, when a judged verdict has no
// evidence, when a verdict differs, or when the reports disagree with the
// manifest's result.
func verifyCommand(args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet("verify", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	var digest *string
	flags.Func("digest", "the manifest's sha256 as conform printed it", func(v string) error {
		digest = &v
		return nil
	})
	var rest []string
	for {
		if err := flags.Parse(args); err != nil {
			return fmt.Errorf("%w: verify: %w", errUsage, err)
		}
		if flags.NArg() == 0 {
			break
		}
		rest, args = append(rest, flags.Arg(0)), flags.Args()[1:]
	}
	if len(rest) != 1 {
		return fmt.Errorf("%w: verify takes one bundle (a .tar.gz written by steadystate conform), and --digest SHA256 to check it against the digest conform printed", errUsage)
	}
	return rejudge.Bundle(rest[0], digest, stdout)
}
