package judge

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
)

// claimProxyLog is a replica's log: a watch of databases (request 1) that
// delivered an event of the Database ns/app at 0.2s from c0, and the
// requests given.
func claimProxyLog(reqs ...proxy.Request) evidence.ProxyLog {
	watch := proxy.Request{ID: 1, RequestInfo: proxy.RequestInfo{Verb: "watch", Group: "example.dev", Resource: "databases", Namespace: "ns"}, Code: 200, Start: c0}
	return evidence.ProxyLog{
		Requests: append([]proxy.Request{watch}, reqs...),
		Events:   []proxy.Event{{WatchID: 1, Delivered: true, At: c0.Add(200 * time.Millisecond), EventMeta: proxy.EventMeta{Type: "ADDED", Kind: "Database", Namespace: "ns", Name: "app"}}},
	}
}

// request is a finished request answered 200, begun at 'at' from c0.
func request(id uint64, verb, resource, name string, at time.Duration) proxy.Request {
	return proxy.Request{ID: id, RequestInfo: proxy.RequestInfo{Verb: verb, Group: "example.dev", Resource: resource, Namespace: "ns", Name: name},
		Code: 200, Start: c0.Add(at), End: c0.Add(at + 10*time.Millisecond)}
}

func TestFirstSight(t *testing.T) {
	since := c0.Add(time.Second)
	for _, tc := range []struct {
		name string
		log  evidence.ProxyLog
		want time.Duration // 0: never
	}{
		{"only the event before since", claimProxyLog(), 0},
		{"a list of its resource", claimProxyLog(request(2, "list", "databases", "", 9*time.Second)), 9*time.Second + 10*time.Millisecond},
		{"a get of it", claimProxyLog(request(2, "get", "databases", "app", 4*time.Second)), 4*time.Second + 10*time.Millisecond},
		{"a get of another object", claimProxyLog(request(2, "get", "databases", "other", 4*time.Second)), 0},
		{"a list of another resource", claimProxyLog(request(2, "list", "configmaps", "", 4*time.Second)), 0},
		{"a list begun before since", claimProxyLog(request(2, "list", "databases", "", 900*time.Millisecond)), 0},
	} {
		got := FirstSight([]evidence.ProxyLog{tc.log}, "Database", "ns/app", since, "")
		if want := c0.Add(tc.want); (tc.want == 0) != got.IsZero() || (tc.want != 0 && !got.Equal(want)) {
			t.Errorf("%s: first sight %v, want %v after c0 (0: never)", tc.name, got.Sub(c0), tc.want)
		}
	}
	log := claimProxyLog()
	log.Events = append(log.Events, proxy.Event{WatchID: 1, Delivered: true, At: c0.Add(3 * time.Second), EventMeta: proxy.EventMeta{Type: "MODIFIED", Kind: "Database", Namespace: "ns", Name: "app", ResourceVersion: "5"}})
	if got := FirstSight([]evidence.ProxyLog{log}, "Database", "ns/app", since, ""); !got.Equal(c0.Add(3 * time.Second)) {
		t.Errorf("a delivered event at 3s: first sight %v after c0", got.Sub(c0))
	}
	if got := FirstSight([]evidence.ProxyLog{log}, "Database", "ns/app", since, "7"); !got.IsZero() {
		t.Errorf("the event at 3s carries resourceVersion 5, older than the deleting state's 7: first sight %v, want none", got.Sub(c0))
	}
	if got := FirstSight([]evidence.ProxyLog{log}, "", "ns/app", since, ""); !got.IsZero() {
		t.Errorf("no kind: first sight %v, want none", got)
	}
}

// The false alarm this removes (Crossplane v1.16.0 under exploration):
// 409s on the claims' lists left client-go's reflector backing off, so the
// claim controller listed claims again 10.5s after the recovery and
// showed Deleting at once; the 5s were owed from when it could see.
func TestDeletingStatusFromFirstSight(t *testing.T) {
	// Deleted at 0.5s, recovered at 3s, Deleting shown from 11s.
	e := claimEvidence("AL"+strings.Repeat("L", 20)+"DDDDDD-", 3*time.Second)
	judge := Offline[catalog.FgDeletingStatus.ID]
	for _, tc := range []struct {
		name string
		log  *evidence.ProxyLog
		lied bool
	}{
		{"no proxy log: owed from the recovery", nil, true},
		{"first listed again at 9s", ptr(claimProxyLog(request(2, "list", "databases", "", 9*time.Second))), false},
		{"saw it at 3.5s", ptr(claimProxyLog(request(2, "get", "databases", "app", 3500*time.Millisecond))), true},
		{"never saw it again", ptr(claimProxyLog()), true},
		// Seen deleting before the recovery, its view was current from
		// then: a later list excuses nothing (the seeded bug's evidence).
		{"saw it at 2s, listed again at 9s", ptr(claimProxyLog(request(2, "get", "databases", "app", 2*time.Second), request(3, "list", "databases", "", 9*time.Second))), true},
	} {
		e.Proxies = nil
		if tc.log != nil {
			e.Proxies = map[string]evidence.ProxyLog{"subject-0": *tc.log}
		}
		if err := judge(e); tc.lied != errors.Is(err, ErrStatusLied) || (!tc.lied && err != nil) {
			t.Errorf("%s: %v, want lied=%v", tc.name, err, tc.lied)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// The start moves at most one reflector backoff: a first sight later than
// that after the recovery does not move it, and the status owed from the
// recovery is late.
func TestFirstSightBeyondTheBackoffCapMovesNothing(t *testing.T) {
	// Deleted at 0.5s, recovered at 3s, first listed again at 9s or at
	// 63.5s; Deleting shown at once after the list.
	judge := Offline[catalog.FgDeletingStatus.ID]
	for _, tc := range []struct {
		name   string
		listAt time.Duration
		lied   bool
	}{
		{"listed again 6s after the recovery", 9 * time.Second, false},
		{"answered just within the cap, 59.91s after", 62900 * time.Millisecond, false},
		{"listed again 60.5s after", 63500 * time.Millisecond, true},
	} {
		shown := int((tc.listAt + 500*time.Millisecond) / (500 * time.Millisecond))
		e := claimEvidence("AL"+strings.Repeat("L", shown-2)+"DDDDDD-", 3*time.Second)
		e.End = c0.Add(tc.listAt + 5*time.Second)
		e.Proxies = map[string]evidence.ProxyLog{"subject-0": claimProxyLog(request(2, "list", "databases", "", tc.listAt))}
		if err := judge(e); tc.lied != errors.Is(err, ErrStatusLied) || (!tc.lied && err != nil) {
			t.Errorf("%s: %v, want lied=%v", tc.name, err, tc.lied)
		}
	}
}
