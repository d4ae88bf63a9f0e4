package judge

import (
	"strings"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// The premises that a proxy fault acted read the fault's rule off the
// timeline and look for it in the replica's proxy log.
func TestRuleMatched(t *testing.T) {
	stall := chaos.Injection{Fault: "watch-stall", Target: "w-0", Start: c0, End: c0.Add(time.Second), Detail: map[string]string{chaos.DetailRules: "w-0=stall-2"}}
	held := proxy.Event{EventMeta: proxy.EventMeta{Type: "ADDED", Kind: "Pod", Name: "web-a"}, Delivered: true, Fault: "stall-2", At: c0.Add(time.Second)}
	cut := held
	cut.Delivered, cut.Fault = false, "cut"
	other := held
	other.Fault = "stall-1"
	for _, tc := range []struct {
		name    string
		faults  []chaos.Injection
		proxies map[string]evidence.ProxyLog
		want    verdict.Outcome
		reason  string
	}{
		{"held an event", []chaos.Injection{stall}, map[string]evidence.ProxyLog{"w-0": {Events: []proxy.Event{held}}}, verdict.Held, ""},
		{"held nothing", []chaos.Injection{stall}, map[string]evidence.ProxyLog{"w-0": {}}, verdict.Broken, "the watch-stall matched no event (w-0's stall-2)"},
		{"only an earlier rule's event", []chaos.Injection{stall}, map[string]evidence.ProxyLog{"w-0": {Events: []proxy.Event{other}}}, verdict.Broken, "matched no event"},
		{"its events cut, never delivered", []chaos.Injection{stall}, map[string]evidence.ProxyLog{"w-0": {Events: []proxy.Event{cut}}}, verdict.Broken, "matched no event"},
		{"the stall failed", []chaos.Injection{{Fault: "watch-stall", Error: "no replica of the subject runs behind the fault proxy"}}, nil, verdict.Broken, "behind the fault proxy"},
		{"no timeline", nil, nil, verdict.NotEvaluated, "records no fault"},
		{"no proxy log", []chaos.Injection{stall}, nil, verdict.NotEvaluated, `proxy log of "w-0"`},
		{"a rule not named", []chaos.Injection{{Fault: "watch-stall", Target: "w-0", Start: c0}}, nil, verdict.NotEvaluated, "names no proxy rule"},
	} {
		got := judged(t, catalog.LostWatchStalled.ID, &evidence.Evidence{Faults: tc.faults, Proxies: tc.proxies})
		if got.Outcome != tc.want || !strings.Contains(got.Reason, tc.reason) {
			t.Errorf("%s: %s %q, want %s with %q", tc.name, got.Outcome, got.Reason, tc.want, tc.reason)
		}
	}
}
