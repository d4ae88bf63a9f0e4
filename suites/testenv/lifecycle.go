package testenv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/internal/progress"
)

// Lifecycle declares a suite's set-up and tear-down in Ginkgo's global
// suite: setup brings the cluster up in the first parallel process and
// connect reaches it from every process (SetupCluster and Connect, or a
// subject's), a failing spec leaves its notes, what a process started for
// its specs (AtTeardown) goes after its last spec, the cluster after every
// process's last spec, and progress events go to Progress when a runner
// set it. A suite's Register calls it before declaring its specs, and a
// process then runs that suite with RunSpecs.
func Lifecycle(setup, connect any) {
	SynchronizedBeforeSuite(setup, connect)
	ReportAfterEach(NoteFailure)
	SynchronizedAfterSuite(runTeardowns, TeardownCluster)
	ReportBeforeSuite(func(r Report) { counter.specs(r.PreRunStats.SpecsThatWillRun) })
	ReportBeforeEach(func(r SpecReport) {
		// Specs a filter left out are reported too, already skipped.
		if r.State != types.SpecStateSkipped {
			counter.spec(r.FullText())
		}
	})
}

var (
	teardownMu sync.Mutex
	teardowns  []func(context.Context) error
)

// AtTeardown registers stop to run in this process after its last spec,
// also after a failure or an interrupt, the latest registered first. It
// is for what a spec starts once per process for the specs after it too
// (the finalizer suite's move target cluster): a suite has one
// SynchronizedAfterSuite, Lifecycle's, so such things stop through it.
func AtTeardown(stop func(context.Context) error) {
	teardownMu.Lock()
	defer teardownMu.Unlock()
	teardowns = append(teardowns, stop)
}

// runTeardowns stops what AtTeardown registered, every one even when
// some fail, and fails with their errors.
func runTeardowns(ctx SpecContext) {
	teardownMu.Lock()
	stops := teardowns
	teardowns = nil
	teardownMu.Unlock()
	var errs []error
	for i := len(stops) - 1; i >= 0; i-- {
		errs = append(errs, stops[i](ctx))
	}
	if err := errors.Join(errs...); err != nil {
		Fail("stopping what the specs started: " + err.Error())
	}
}

// Progress receives a suite's progress events, one JSON progress.Event per
// line: which spec of how many is running, and each fault as it starts
// and ends. A runner sets it once before RunSpecs (`steadystate suite`
// sets it to the file descriptor its parent passes); nil sends none.
var Progress io.Writer

// SendPeakMemory sends this process's peak resident memory (VmHWM) to the
// run's progress; nothing where the kernel does not say.
func SendPeakMemory() {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(data), "\n") {
		if kb, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var n int64
			if _, err := fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(kb), " kB"), &n); err == nil {
				send(progress.Event{PeakMemory: n << 10})
			}
			return
		}
	}
}

// Status sends a status line to the run's progress.
func Status(line string) { send(progress.Event{Status: line}) }

// progressState counts the specs; reporter nodes and faults may run on
// other goroutines than the spec's.
type progressState struct {
	mu       sync.Mutex
	n, total int
}

var counter progressState

func (p *progressState) specs(total int) {
	p.mu.Lock()
	p.total = total
	p.mu.Unlock()
}

func (p *progressState) spec(text string) {
	p.mu.Lock()
	p.n++
	e := progress.Event{Spec: p.n, Specs: p.total, Text: text}
	p.mu.Unlock()
	send(e)
}

// fault is a timeline's observer: each fault as it starts and ends.
func (p *progressState) fault(inj chaos.Injection, active bool) {
	send(progress.Event{Fault: inj.Fault, Target: inj.Target, Active: active})
}

var sendMu sync.Mutex

func send(e progress.Event) {
	if Progress == nil {
		return
	}
	line, err := json.Marshal(e)
	if err != nil {
		return
	}
	sendMu.Lock()
	defer sendMu.Unlock()
	_, _ = Progress.Write(append(line, '\n')) // progress is advisory: a closed reader loses lines, not the run
}
