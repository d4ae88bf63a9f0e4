package main

import (
	"errors"
	"fmt"

	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/internal/testenv"
	"github.com/steadystate-dev/steadystate/suites"
)

// suiteCommand runs one suite in this process, as its test binary would:
// the matrix runs (conform, selftest, upstream) start one child process
// per cell with it, so an installed steadystate runs the suites with no
// source tree. The suite's configuration comes from the environment (as
// for make e2e) and the flags; it exits 1 when a spec did not pass.
func suiteCommand(args []string) error {
	if cli.WantsHelp(args) {
		return cli.HelpRequest{Text: suiteHelp()}
	}
	if len(args) == 0 {
		return fmt.Errorf("%w: suite needs a suite name: one of %s", errUsage, suites.Names())
	}
	passed, err := suites.Run(args[0], args[1:])
	if errors.Is(err, suites.ErrFlags) {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if err != nil {
		return err
	}
	if !passed {
		return errSuiteFailed
	}
	return nil
}

// errSuiteFailed is a suite run whose specs did not all pass: Ginkgo's
// output already says which, so main prints nothing more.
var errSuiteFailed = errors.New("a spec did not pass")

// suiteHelp is the suite command's usage with the suites' own flags.
func suiteHelp() string {
	cmd := cli.New("suite", "suite NAME [FLAGS]",
		"Runs one suite in this process, as its test binary would, with Ginkgo's -ginkgo.* flags\n"+
			"(see 'go tool ginkgo help run') and the flags below; the matrix commands run each cell\n"+
			"so. It exits 1 when a spec did not pass. The suites: "+suites.Names()+".")
	testenv.RegisterFlags(cmd.FS)
	cmd.FS.Int("steadystate.progress-fd", 0, "file descriptor for progress events (JSON lines)")
	if suites.Explore.Flags != nil {
		suites.Explore.Flags(cmd.FS)
	}
	return cmd.Help()
}
