package chaos

import (
	"context"
	"reflect"
	"slices"
	"time"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
)

// AwaitRequest waits until a replica of t logs a request begun after
// since that seen accepts, and reports whether one did before until (or
// ctx's end). It reads a replica's requests again when its log changes
// (proxy.Controller's Logged), at most every recheckLog, not on a clock:
// a controller that is quiet wakes nothing.
func (t Target) AwaitRequest(ctx context.Context, since, until time.Time, seen func(proxy.Request) bool) bool {
	marks := t.RequestMarks(since)
	after := func(req proxy.Request) bool { return req.Start.After(since) && seen(req) }
	for {
		looked := time.Now()
		wake := []reflect.SelectCase{{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())}}
		for p, mark := range marks {
			// Taken before the log is read: a request logged after the
			// read closes it.
			wake = append(wake, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(p.Logged())})
			if slices.ContainsFunc(p.RequestsAfter(mark), after) {
				return true
			}
		}
		if !time.Now().Before(until) {
			return false
		}
		timer := time.NewTimer(time.Until(until))
		chosen, _, _ := reflect.Select(append(wake, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(timer.C)}))
		timer.Stop()
		if chosen == 0 {
			return false
		}
		// A burst of requests is read once; a remote proxy's Logged
		// closes every few milliseconds whatever it logs.
		if d := min(recheckLog-time.Since(looked), time.Until(until)); d > 0 {
			select {
			case <-ctx.Done():
				return false
			case <-time.After(d):
			}
		}
	}
}

// recheckLog is the least time between two reads of the replicas'
// request logs by AwaitRequest.
const recheckLog = 100 * time.Millisecond

// RequestMarks is, for each replica with a proxy, the ID before its first
// request begun after since: RequestsAfter(mark) holds every request
// begun after it. A request gets its ID just after its start time is
// taken, so IDs and start times may disagree by a moment between
// requests begun together; the mark is before both.
func (t Target) RequestMarks(since time.Time) map[proxy.Controller]uint64 {
	marks := map[proxy.Controller]uint64{}
	for _, r := range t.Replicas {
		if r.Proxy == nil {
			continue
		}
		var mark uint64
		for _, req := range r.Proxy.Requests() {
			if req.Start.After(since) {
				break
			}
			mark = req.ID
		}
		marks[r.Proxy] = mark
	}
	return marks
}
