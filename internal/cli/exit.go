package cli

import (
	"errors"
)

// The exit codes of the commands that judge (conform, explore, verify,
// validate, report, selftest, upstream, e2e, suite), so that CI can fail
// on a finding and retry a harness error (docs/conformance.md, "Exit
// codes"). The commands that judge nothing exit 0, 2 or 3.
const (
	// ExitPassed: every judged property held (with or without gaps,
	// unless --fail-on-gaps).
	ExitPassed = 0
	// ExitFinding: a property broke (for selftest and upstream: a seeded
	// bug missed, caught on other properties, or a false alarm). A
	// finding is a fact about the controller (or the suites), whatever
	// else went wrong in the same run: it wins over an error.
	ExitFinding = 1
	// ExitUsage: the command refused how it was called (a flag, an
	// argument, the environment, the subject file) before it ran.
	ExitUsage = 2
	// ExitError: the harness failed or judged nothing: a spec ended in an
	// error, evidence is missing or does not verify, the run was
	// interrupted. Nothing is known against the controller; run again.
	ExitError = 3
	// ExitGaps: the run passed with gaps (properties of a bound
	// capability not judged) and --fail-on-gaps asked that this fail.
	// Neither a finding nor worth a retry: the gaps come from what was
	// run and where, and stay until that changes.
	ExitGaps = 4
)

var (
	// ErrFinding marks a failure that is a finding (ExitFinding).
	ErrFinding = errors.New("finding")
	// ErrHarness marks a failure of the harness, or a run that judged
	// nothing (ExitError). An error marked with nothing is one too.
	ErrHarness = errors.New("harness error")
	// ErrInput marks input a command refused before it ran (ExitUsage),
	// said in one line without the usage: a subject file that does not
	// load, a setting out of range, a path that names nothing.
	ErrInput = errors.New("input refused")
	// ErrGaps marks a pass with gaps refused by --fail-on-gaps
	// (ExitGaps).
	ErrGaps = errors.New("passed with gaps")
)

// marked is an error with its kind, its message unchanged.
type marked struct{ err, kind error }

func (m marked) Error() string   { return m.err.Error() }
func (m marked) Unwrap() []error { return []error{m.err, m.kind} }

// Mark marks err as of kind (ErrFinding, ErrHarness, ErrInput, ErrGaps),
// keeping its message; nil stays nil. Help requests and usage errors
// keep their own kind.
func Mark(kind, err error) error {
	if err == nil || errors.Is(err, ErrUsage) || errors.As(err, new(HelpRequest)) {
		return err
	}
	return marked{err: err, kind: kind}
}

// ExitCode is the exit code of a command that ended with err. A usage
// mistake is 2; a finding 1, even beside an error (the finding stands on
// its own evidence, and a retry that happened not to break the property
// again would hide it); gaps refused 4; any other error 3.
func ExitCode(err error) int {
	switch {
	case err == nil:
		return ExitPassed
	case errors.Is(err, ErrUsage), errors.Is(err, ErrInput):
		return ExitUsage
	case errors.Is(err, ErrFinding):
		return ExitFinding
	case errors.Is(err, ErrHarness):
		return ExitError
	case errors.Is(err, ErrGaps):
		return ExitGaps
	}
	return ExitError
}
