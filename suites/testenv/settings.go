package testenv

import (
	"flag"
	"time"

	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// Settings are the suites' timeouts and windows. Bounds that the bug
// classes (docs/design.md) state as properties (P1's 30s, Deleting within 5s, the blocker named
// within 15s, a later scale change acted on within 30s) are part of the
// property and stay fixed; these are the harness's own waits.
type Settings struct {
	// Converge is T for a subject reaching its first steady state (the
	// "healthy before the fault" assumptions) and for recoveries that
	// have no stated bound.
	Converge time.Duration
	// Window is W: how long the observed state must keep matching.
	Window time.Duration
	// RecoveryMargin is added to the subject's expectation timeout for
	// recovery after lost events.
	RecoveryMargin time.Duration
}

// DefaultSettings are the documented defaults.
var DefaultSettings = Settings{Converge: 30 * time.Second, Window: time.Second, RecoveryMargin: 15 * time.Second}

// Current holds the settings of this run: DefaultSettings unless flags
// changed them.
var Current = DefaultSettings

// RegisterFlags adds -steadystate.converge-timeout, -steadystate.window,
// -steadystate.recovery-margin and the cell's flags (-steadystate.subject
// and others, see registerCellFlags) to fs. suites.Run adds them for
// every suite it runs (`steadystate suite`, `steadystate e2e`, a suite's
// test binary); a run sets them so: make e2e SUITE_FLAGS=-steadystate.window=2s.
func RegisterFlags(fs *flag.FlagSet) {
	fs.DurationVar(&Current.Converge, "steadystate.converge-timeout", DefaultSettings.Converge, "T: how long a subject may take to reach a steady state when no property states a bound")
	fs.DurationVar(&Current.Window, "steadystate.window", DefaultSettings.Window, "W: how long the observed state must keep matching the desired state to count as converged")
	fs.DurationVar(&Current.RecoveryMargin, "steadystate.recovery-margin", DefaultSettings.RecoveryMargin, "added to the subject's expectation timeout for recovery after lost events")
	registerCellFlags(fs)
}

// Settle is convergence within T and W of the settings: for waits whose
// bound is the harness's, not a property's.
func Settle(since time.Time) oracle.Convergence {
	return oracle.Convergence{Since: since, Within: Current.Converge, Window: Current.Window}
}

// Within is convergence within a bound a property states, stable for W.
func Within(since time.Time, bound time.Duration) oracle.Convergence {
	return oracle.Convergence{Since: since, Within: bound, Window: Current.Window}
}

// AfterReplacement is convergence after pods of the workload were deleted
// (a deletion storm): within the longer of the subject's expectation
// timeout and replaceWithin (how long its binding says it may take, by
// design, to replace a deleted pod: the Job controller's backoff) plus the
// recovery margin, stable for W. A bound shorter than the replacement the
// binding allows would turn a raised replaceWithin from an error of the
// spec into a false finding.
func AfterReplacement(since time.Time, expectationTimeout, replaceWithin time.Duration) oracle.Convergence {
	return Recovery(since, max(expectationTimeout, replaceWithin))
}

// Recovery is convergence after lost events: within the subject's
// expectation timeout plus the recovery margin, stable for W.
func Recovery(since time.Time, expectationTimeout time.Duration) oracle.Convergence {
	return oracle.Convergence{Since: since, Within: expectationTimeout + Current.RecoveryMargin, Window: Current.Window}
}
