package explore

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/chaos/schedule"
)

// triggerTimeout is how long a step placed after a request of the
// subject waits for it, unless its trigger says (Within); a request that
// never comes leaves the step undone, as the schedule's outcome, not an
// error.
var triggerTimeout = 8 * time.Second

// outcome is what became of one step.
type outcome struct {
	Step int
	// At is when it began, from the schedule's start; Phase the
	// subject's phase then.
	At    time.Duration
	Phase string
	// Skipped says why it was not done (its trigger never came, its
	// replica was not there); Err why it failed.
	Skipped, Err string
}

// ranFault reports whether o is a fault step's that ran: its injection
// is on the timeline, failed or not.
func (o outcome) ranFault(s schedule.Schedule) bool {
	return s.Steps[o.Step].Fault != "" && o.Skipped == ""
}

// acted reports whether o's step did what it says, for coverage.
func (o outcome) acted() bool { return o.Skipped == "" && o.Err == "" }

// execute runs s's steps against d, each on its own goroutine at its time,
// and returns once every step is done and every fault it injected is
// recovered. Faults go on tl.
func execute(ctx context.Context, tl *chaos.Timeline, d driver, s schedule.Schedule) []outcome {
	start := time.Now()
	out := make([]outcome, len(s.Steps))
	var wg sync.WaitGroup
	for i, st := range s.Steps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer GinkgoRecover()
			o := &out[i]
			o.Step = i
			at := start
			if st.After != nil {
				// Armed from its From on: requests made before do not count.
				if !until(ctx, start.Add(st.After.From)) {
					o.Skipped = "interrupted"
					return
				}
				var ok bool
				if at, ok = awaitRequest(ctx, d, *st.After, d.target().RequestMarks(time.Now()), !proxyRule[st.Fault]); !ok {
					o.Skipped = fmt.Sprintf("the subject made no %s of %s within %s", st.After.Verb, st.After.Resource, triggerWithin(*st.After))
					return
				}
			}
			if !until(ctx, at.Add(st.At)) {
				o.Skipped = "interrupted"
				return
			}
			o.At, o.Phase = time.Since(start).Round(time.Millisecond), d.phase()
			switch err := do(ctx, tl, d, st); {
			case notThere(err):
				o.Skipped = err.Error()
			case err != nil:
				o.Err = err.Error()
			}
		}()
	}
	wg.Wait()
	return out
}

// do runs one step: a workload step through the driver, a fault with
// chaos.Inject, which holds it for its duration, always recovers it and
// records it on tl. A fault refused before its injection (it could not be
// made, or cannot act on the subject) is recorded on tl as failed too:
// the premise catalog.ExploreStepsActed reads the timeline. A fault whose
// replica is not there now (no leader, no follower) is not done, as a
// step whose trigger never came (noTarget).
func do(ctx context.Context, tl *chaos.Timeline, d driver, st schedule.Step) error {
	if st.Workload != "" {
		return d.workload(ctx, st)
	}
	f, err := faultFor(ctx, d, st)
	if notThere(err) {
		return err
	}
	if err == nil {
		if _, err = chaos.Inject(ctx, tl, f, d.target()); !errors.Is(err, chaos.ErrUnavailable) {
			return err
		}
	}
	now := time.Now()
	tl.Add(chaos.Injection{Fault: st.Fault, Start: now, End: now, Error: err.Error()})
	return err
}

// until waits for the moment t; false if ctx ended first.
func until(ctx context.Context, t time.Time) bool {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// triggerWithin is how long tr waits for its request once armed.
func triggerWithin(tr schedule.Trigger) time.Duration {
	if tr.Within > 0 {
		return tr.Within
	}
	return triggerTimeout
}

// proxyRule are the faults that are rules of the fault proxy: they act on
// the requests and watch events after them.
var proxyRule = map[string]bool{
	"watch-stall": true, "watch-cut": true, "watch-reset": true, "forced-relist": true,
	"event-drop": true, "event-delay": true, "partition-refuse": true, "partition-blackhole": true,
	"answer-429": true, "answer-500": true, "answer-409": true, "refuse-once-409": true, "refuse-once-500": true,
}

// awaitRequest waits until a replica's proxy logs a request of the
// trigger's verb and resource after its mark, and returns when it saw it;
// with answered, only once the request was answered. A step that acts
// through the API server (a workload step, a pod deletion, a process
// fault) waits for the answer: right after a create it must find what was
// created (a pod deletion takes the pod the subject just made; begun but
// not answered, the API server has not made it, and the deletion took an
// older pod). A rule of the fault proxy goes in as the request begins, so
// that the subject's next request is already the rule's. It reads the
// logs again each time one changes (proxy.Controller's Logged), not on a
// clock: at once after the request, and with no wake-ups while the
// subject is quiet.
func awaitRequest(ctx context.Context, d driver, tr schedule.Trigger, marks map[proxy.Controller]uint64, answered bool) (time.Time, bool) {
	resource := d.resource(tr.Resource)
	ctx, cancel := context.WithTimeout(ctx, triggerWithin(tr))
	defer cancel()
	wake := make([]reflect.SelectCase, 0, len(marks)+1)
	for {
		wake = append(wake[:0], reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())})
		for p, mark := range marks {
			// Taken before the log is read: a request logged after the
			// read closes it.
			wake = append(wake, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(p.Logged())})
			for _, req := range p.RequestsAfter(mark) {
				if req.Verb == tr.Verb && req.Resource == resource && (!answered || !req.End.IsZero()) {
					return time.Now(), true
				}
			}
		}
		if chosen, _, _ := reflect.Select(wake); chosen == 0 {
			return time.Time{}, false
		}
	}
}

// followTimeout bounds the wait for a replica its kubelet restarts in
// place (a chaos.Follower): past the kubelet's first back-offs (10 s,
// 20 s) of a container that exited more than once.
var followTimeout = time.Minute

// exitBackoff is how long superviseExits waits before it starts a replica
// again after its first exit: a kubelet's first back-off; it doubles with
// each exit after, as the kubelet's does, up to exitBackoffMax.
var exitBackoff, exitBackoffMax = 10 * time.Second, 5 * time.Minute

// exitPoll is how often superviseExits asks a host that does not say when
// its controller exits (chaos.Ending) whether it has.
const exitPoll = 200 * time.Millisecond

// superviseExits starts again every replica run as a local process that
// exits by itself while a schedule is judged, as its Deployment's kubelet
// would start the container again: a controller that exits when the API
// server does not answer at its start (a manager's "unable to start
// manager") is run again exitBackoff later, doubling. restartStopped looks
// once, when the faults are recovered; a replica started again by a
// process fault inside a partition exits only when the partition's end
// fails its first request, after that look. Each restart is passed to
// restarted, naming the replica, so the schedule's
// facts say it (its log says why it exited); a restart that fails is
// passed too, and supervision of that replica ends. It returns when ctx
// ends, after any restart under way, and closes ended.
func superviseExits(ctx context.Context, t chaos.Target, ended chan<- struct{}, restarted func(string)) {
	defer close(ended)
	exits := map[string]int{}
	given := map[string]bool{}
	for ctx.Err() == nil {
		for _, r := range t.Replicas {
			h, ok := r.Host.(chaos.Restarter)
			if !ok || given[r.Identity] || !r.Host.Exited(ctx) {
				continue
			}
			wait := min(exitBackoff<<exits[r.Identity], exitBackoffMax)
			exits[r.Identity]++
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			if _, err := h.Restart(ctx, 10*time.Second); err != nil {
				given[r.Identity] = true
				restarted(fmt.Sprintf("%s exited by itself and could not be started again: %v", r.Identity, err))
				continue
			}
			restarted(fmt.Sprintf("%s exited by itself; started again %s later, as its kubelet would", r.Identity, wait))
		}
		// Until a supervised replica's run ends: on the host's word where
		// it gives it, by asking again every exitPoll where not.
		wake := []reflect.SelectCase{{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())}}
		poll := false
		for _, r := range t.Replicas {
			if _, ok := r.Host.(chaos.Restarter); !ok || given[r.Identity] {
				continue
			}
			if e, ok := r.Host.(chaos.Ending); ok {
				wake = append(wake, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(e.Ended())})
			} else {
				poll = true
			}
		}
		if poll {
			wake = append(wake, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(time.After(exitPoll))})
		}
		if chosen, _, _ := reflect.Select(wake); chosen == 0 {
			return
		}
	}
}

// restartStopped starts again every replica a fault left stopped, as its
// Deployment would, and follows back every replica that its kubelet
// restarts in place (a controller in a pod that exited by itself); a
// replica that can do neither, or does not come back, is named. A
// followed replica is listed with the restarts it was seen after.
func restartStopped(ctx context.Context, t chaos.Target) (restarted []string, err error) {
	for _, r := range t.Replicas {
		if r.Host == nil || !r.Host.Exited(ctx) {
			continue
		}
		switch h := r.Host.(type) {
		case chaos.Restarter:
			if _, err := h.Restart(ctx, 10*time.Second); err != nil {
				return restarted, fmt.Errorf("restart replica %s: %w", r.Identity, err)
			}
			restarted = append(restarted, r.Identity)
		case chaos.Follower:
			detail, err := h.Follow(ctx, followTimeout)
			if err != nil {
				return restarted, fmt.Errorf("replica %s exited and did not come back: %w", r.Identity, err)
			}
			entry := fmt.Sprintf("%s (in place by its kubelet: %s restart(s)", r.Identity, detail["restarts"])
			if code, ok := detail["exitCode"]; ok {
				entry += ", last exit code " + code
			}
			restarted = append(restarted, entry+")")
		default:
			return restarted, fmt.Errorf("replica %s stopped and cannot be restarted in place (%v)", r.Identity, r.Host.Where())
		}
	}
	return restarted, nil
}
