package judge

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// proxyLog is a replica's log: a watch of pods (request 1) delivering
// an event for each pod named in delivered, at the given offsets from
// the history's start (time.Unix(100, 0), as history's), and lists of
// pods answered at the offsets in lists.
func proxyLog(delivered map[string]time.Duration, lists ...time.Duration) evidence.ProxyLog {
	base := time.Unix(100, 0)
	l := evidence.ProxyLog{Requests: []proxy.Request{{ID: 1, RequestInfo: proxy.RequestInfo{Verb: "watch", Resource: "pods", Namespace: "ns"}, Code: 200, Start: base}}}
	for name, at := range delivered {
		l.Events = append(l.Events, proxy.Event{WatchID: 1, Delivered: true, At: base.Add(at), EventMeta: proxy.EventMeta{Type: "ADDED", Namespace: "ns", Name: name}})
	}
	for i, at := range lists {
		l.Requests = append(l.Requests, proxy.Request{ID: uint64(i + 2), RequestInfo: proxy.RequestInfo{Verb: "list", Resource: "pods", Namespace: "ns"},
			Code: 200, Start: base.Add(at - 10*time.Millisecond), End: base.Add(at)})
	}
	return l
}

// madeBy adds to l a create of each pod of pods the subject made (all
// when names is empty), answered 5 ms before the recorder saw the pod.
func madeBy(l evidence.ProxyLog, pods []oracle.Event, names ...string) evidence.ProxyLog {
	for _, e := range pods {
		if _, name, _ := strings.Cut(e.Key, "/"); e.Type == "ADDED" && (len(names) == 0 || slices.Contains(names, name)) {
			l.Requests = append(l.Requests, proxy.Request{ID: uint64(100 + len(l.Requests)), RequestInfo: proxy.RequestInfo{Verb: "create", Resource: "pods", Namespace: "ns"},
				Code: 201, Start: e.At.Add(-20 * time.Millisecond), End: e.At.Add(-5 * time.Millisecond)})
		}
	}
	return l
}

func TestUnseenCreates(t *testing.T) {
	// history: +a at 1s, +b at 2s, +c at 3s, -c at 4s.
	_, pods := history("W2", "+a", "+b", "+c", "-c")
	// a is seen by its event at 1.1s; b by a list answered at 5s (its
	// event was dropped). c was gone by the time that list began, yet
	// counts as seen there: the earlier side, which excuses less. A
	// delivered event of another watch (not of pods) does not count.
	log := proxyLog(map[string]time.Duration{"a": 1100 * time.Millisecond}, 5*time.Second)
	log.Events = append(log.Events, proxy.Event{WatchID: 9, Delivered: true, At: time.Unix(102, 0), EventMeta: proxy.EventMeta{Type: "ADDED", Namespace: "ns", Name: "b"}})
	got := UnseenCreates(pods, []evidence.ProxyLog{log})
	want := map[string]time.Duration{"ns/a": 1100 * time.Millisecond, "ns/b": 5 * time.Second, "ns/c": 5 * time.Second}
	for key, seen := range want {
		if s := got[key]; !s.Seen.Equal(time.Unix(100, 0).Add(seen)) {
			t.Errorf("%s seen at %v, want %v after the start", key, s.Seen, seen)
		}
	}
	// Without the list, b and c are never seen.
	got = UnseenCreates(pods, []evidence.ProxyLog{proxyLog(map[string]time.Duration{"a": 1100 * time.Millisecond})})
	if !got["ns/b"].Seen.IsZero() || !got["ns/c"].Seen.IsZero() {
		t.Errorf("b and c seen with no event or list of them: %+v", got)
	}
}

// The false alarm this excusal removes: a pod watch blind for longer
// than the expectation timeout across a scale-up; the controller's
// expectation of pod c expired, and it made d from its stale cache.
func TestNoOvershootExcusesUnseenCreates(t *testing.T) {
	// W2 at 0s, +a 1s, +b 2s, W3 3s, +c 4s, +d 5s (c unseen until 5.5s).
	w, pods := history("W2", "+a", "+b", "W3", "+c", "+d")
	seen := map[string]time.Duration{"a": 1100 * time.Millisecond, "b": 2100 * time.Millisecond, "c": 5500 * time.Millisecond, "d": 5600 * time.Millisecond}
	logs := []evidence.ProxyLog{madeBy(proxyLog(seen), pods)}
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		logs    []evidence.ProxyLog
		broken  bool
	}{
		{"c unseen for 1s, past a 1s timeout: d is excused", time.Second, logs, false},
		{"c unseen for 1s, within a 2s timeout: d is an overshoot", 2 * time.Second, logs, true},
		{"a subject with no expectations is excused nothing", 0, logs, true},
		{"no proxy log: nothing is excused", time.Second, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			excused := ExcusedCreates(UnseenCreates(pods, tc.logs), tc.timeout, time.Time{})
			err := NoOvershoot(w, pods, specReplicas, excused)
			if got := err != nil; got != tc.broken || (got && !errors.Is(err, ErrOvershoot)) {
				t.Fatalf("NoOvershoot = %v with excused %v, want broken=%v", err, excused, tc.broken)
			}
		})
	}
	// c seen in time (4.5s): d was made with c in view, not excused.
	seen["c"] = 4500 * time.Millisecond
	excused := ExcusedCreates(UnseenCreates(pods, []evidence.ProxyLog{madeBy(proxyLog(seen), pods)}), time.Second, time.Time{})
	if err := NoOvershoot(w, pods, specReplicas, excused); err == nil {
		t.Fatalf("an overshoot made with every pod seen was excused: %v", excused)
	}
	// Only the pods beyond the limit are excused: an excused pod does
	// not cover a later one made while every pod was seen.
	w, pods = history("W2", "+a", "+b", "W3", "+c", "+d", "+e")
	seen = map[string]time.Duration{"a": 1100 * time.Millisecond, "b": 2100 * time.Millisecond, "c": 5500 * time.Millisecond, "d": 5600 * time.Millisecond, "e": 6100 * time.Millisecond}
	excused = ExcusedCreates(UnseenCreates(pods, []evidence.ProxyLog{madeBy(proxyLog(seen), pods)}), time.Second, time.Time{})
	err := NoOvershoot(w, pods, specReplicas, excused)
	if err == nil || !strings.Contains(err.Error(), "5 pods live") {
		t.Fatalf("NoOvershoot = %v with excused %v, want the fifth pod an overshoot", err, excused)
	}
}

// The subject's watch may deliver a pod a moment before the recorder's
// watch records it. That sighting counts, by resourceVersion: the replay
// where it did not count excused three pods made 3.5 s after a pod the
// subject had seen at once, and an overshoot passed.
func TestUnseenCreatesBeforeTheRecorder(t *testing.T) {
	w, pods := history("W2", "+a", "+b", "W3", "+c", "+d") // a created at rv 11, 1s
	rv := func(e proxy.Event, v string) proxy.Event { e.ResourceVersion = v; return e }
	log := madeBy(proxyLog(nil), pods)
	ev := func(name string, at time.Duration) proxy.Event {
		return proxy.Event{WatchID: 1, Delivered: true, At: time.Unix(100, 0).Add(at), EventMeta: proxy.EventMeta{Type: "ADDED", Namespace: "ns", Name: name}}
	}
	log.Events = []proxy.Event{
		rv(ev("a", 999*time.Millisecond), "11"), // 1 ms before the recorder
		rv(ev("b", 2100*time.Millisecond), "12"),
		rv(ev("c", 4100*time.Millisecond), "14"),
		rv(ev("d", 5100*time.Millisecond), "15"),
	}
	got := UnseenCreates(pods, []evidence.ProxyLog{log})
	if want := time.Unix(100, 0).Add(999 * time.Millisecond); !got["ns/a"].Seen.Equal(want) {
		t.Fatalf("a seen at %v, want %v", got["ns/a"].Seen, want)
	}
	excused := ExcusedCreates(got, time.Second, time.Time{})
	if err := NoOvershoot(w, pods, specReplicas, excused); !errors.Is(err, ErrOvershoot) {
		t.Fatalf("NoOvershoot = %v with excused %v, want the overshoot", err, excused)
	}
	// An event of an older state of the key (a pod of the same name
	// before it) is no sighting of this one.
	log.Events[0] = rv(ev("a", 999*time.Millisecond), "9")
	if got := UnseenCreates(pods, []evidence.ProxyLog{log}); !got["ns/a"].Seen.IsZero() {
		t.Errorf("a seen by an event of rv 9 at %v; it was created at rv 11", got["ns/a"].Seen)
	}
}

// The caps of the excusal: only the subject's own creates are excused,
// none made after the cap, and none kept beyond the limit after it.
func TestExcusalCaps(t *testing.T) {
	// W2 at 0s, +a 1s, +b 2s, W3 3s, +c 4s, +d 5s: c unseen for over the
	// 1 s expectation timeout when d was made.
	w, pods := history("W2", "+a", "+b", "W3", "+c", "+d")
	seen := map[string]time.Duration{"a": 1100 * time.Millisecond, "b": 2100 * time.Millisecond, "c": 5500 * time.Millisecond, "d": 5600 * time.Millisecond}
	judge := func(log evidence.ProxyLog, end time.Duration) error {
		return NoOvershoot(w, pods, specReplicas, ExcusedCreates(UnseenCreates(pods, []evidence.ProxyLog{log}), time.Second, time.Unix(100, 0).Add(end)))
	}
	if err := judge(madeBy(proxyLog(seen), pods), 6*time.Second); err != nil {
		t.Fatalf("d made by the subject from its stale cache, within the cap: %v", err)
	}
	// Someone else made d: the subject's expectations excuse nothing of it.
	if err := judge(madeBy(proxyLog(seen), pods, "a", "b", "c"), 6*time.Second); !errors.Is(err, ErrOvershoot) {
		t.Errorf("d not made by the subject: %v, want an overshoot", err)
	}
	// A create the API server refused made nothing.
	refused := madeBy(proxyLog(seen), pods)
	for i := range refused.Requests {
		if refused.Requests[i].Verb == "create" {
			refused.Requests[i].Code = 409
		}
	}
	if err := judge(refused, 6*time.Second); !errors.Is(err, ErrOvershoot) {
		t.Errorf("d's create refused: %v, want an overshoot", err)
	}
	// Still beyond the limit one timeout after c was seen (6.5s): an
	// overshoot when the excusal ended, though nothing was recorded then.
	var v *oracle.Violation
	err := judge(madeBy(proxyLog(seen), pods), 8*time.Second)
	if !errors.Is(err, ErrOvershoot) || !errors.As(err, &v) || !v.At.Equal(time.Unix(106, 500_000_000)) || !strings.Contains(err.Error(), "when the excusal of the pods beyond it ended") {
		t.Errorf("d kept past its excusal: %v (at %v), want an overshoot at 6.5s", err, v)
	}
	// c never seen: its expectation expired at 5s, the excusal ends at
	// 6s; a pod made at 7s is made later than the cap.
	w, pods = history("W2", "+a", "+b", "W3", "+c", ".", ".", "+d")
	delete(seen, "c")
	if err := judge(madeBy(proxyLog(seen), pods), 7*time.Second); !errors.Is(err, ErrOvershoot) || !strings.Contains(err.Error(), "ADDED ns/d") {
		t.Errorf("d made 3s after c, never seen, with a 1s timeout: %v, want an overshoot at d's create", err)
	}
}
