package testenv

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/steadystate-dev/steadystate/oracle"
	"github.com/steadystate-dev/steadystate/verdict"
)

// Judges declares, as a decorator of an It, the properties the spec must
// judge: one Ginkgo label per property (verdict.Declaration), so
// Ginkgo's report names them even when the spec never reaches its checks.
// A spec that passes without a record of each is an error
// (verdict.Classify); one the binding cannot judge is recorded NotBound.
func Judges(ps ...verdict.Property) Labels {
	return Label(verdict.Declarations(ps...)...)
}

// specState is what the current spec has said about itself besides its
// checks, reset when another spec starts.
var specState struct {
	sync.Mutex
	start    time.Time
	notBound []verdict.Record
	// ctxEnded: a wait of the spec (Await) ended because the spec's
	// context did.
	ctxEnded bool
}

// current resets specState at a new spec; call it with the lock held.
func currentSpecState() {
	if start := CurrentSpecReport().StartTime; !specState.start.Equal(start) {
		specState.start, specState.notBound, specState.ctxEnded = start, nil, false
	}
}

// NotBound records that the subject's binding gives the current spec no
// means to judge p (why names the binding it lacks): a not-bound record,
// which every report shows, never a pass and never a finding. Verify
// keeps it with the spec's records.
func NotBound(p verdict.Property, why string) {
	rec := verdict.Record{Property: p, Outcome: verdict.NotBound, Reason: why}
	specState.Lock()
	currentSpecState()
	specState.notBound = append(specState.notBound, rec)
	specState.Unlock()
	AddReportEntry(verdict.EntryName, ReportEntryVisibilityFailureOrVerbose, rec)
}

func notBoundRecords() []verdict.Record {
	specState.Lock()
	defer specState.Unlock()
	currentSpecState()
	return append([]verdict.Record(nil), specState.notBound...)
}

// contextEnded notes that the spec's context ended during one of its
// waits: a check that then finds its property unmet judged nothing.
func contextEnded(ctx context.Context) {
	if ctx.Err() == nil {
		return
	}
	specState.Lock()
	currentSpecState()
	specState.ctxEnded = true
	specState.Unlock()
}

func specContextEnded() bool {
	specState.Lock()
	defer specState.Unlock()
	currentSpecState()
	return specState.ctxEnded
}

// IsContextErr reports whether err is, or wraps, a context's end
// (context.Canceled or context.DeadlineExceeded).
func IsContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// unjudgedOnContextEnd makes c's error not evaluated when it is a
// context's end, or when ended says the spec's context ended while it
// waited: the check stopped waiting, which says nothing of the subject.
// Every verdict comes from the evidence; a deadline is never one.
func unjudgedOnContextEnd(c oracle.Check, ended func() bool) oracle.Check {
	run := c.Run
	c.Run = func() error {
		err := run()
		if err == nil || errors.Is(err, oracle.ErrNotEvaluated) || (!IsContextErr(err) && !ended()) {
			return err
		}
		return fmt.Errorf("%w: the spec ended before %s was judged: %w", oracle.ErrNotEvaluated, c.Property.ID, err)
	}
	return c
}
