package evidence

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// Two snapshots of the same evidence have one extent; any change a judge
// could read gives another, including a request answered since (same
// count, one fewer in flight) and a fault recovered since.
func TestExtentChangesWithTheEvidence(t *testing.T) {
	at := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	base := func() *Evidence {
		return &Evidence{
			Histories:  map[string][]oracle.EventRecord{"pods": {{At: at, Type: "ADDED", Key: "ns/a"}}},
			Incomplete: map[string]string{},
			Proxies: map[string]ProxyLog{"r0": {
				Requests: []proxy.Request{{RequestInfo: proxy.RequestInfo{Verb: "watch", Resource: "pods"}, Start: at}},
				Events:   []proxy.Event{{Delivered: true, At: at}},
			}},
			Faults: []chaos.Injection{{Fault: "cut-watch", Start: at}},
			Facts:  map[string]string{"deleted": "a"},
			Logs:   map[string]json.RawMessage{"external": json.RawMessage(`[]`)},
		}
	}
	if a, b := base().Extent(), base().Extent(); a != b {
		t.Fatalf("the same evidence, two extents:\n%s\n%s", a, b)
	}
	changes := map[string]func(e *Evidence){
		"a record more": func(e *Evidence) {
			e.Histories["pods"] = append(e.Histories["pods"], oracle.EventRecord{At: at, Type: "DELETED", Key: "ns/a"})
		},
		"a history more":       func(e *Evidence) { e.Histories["services"] = nil },
		"a history incomplete": func(e *Evidence) { e.Incomplete["pods"] = "410 Gone" },
		"a request more": func(e *Evidence) {
			p := e.Proxies["r0"]
			p.Requests = append(p.Requests, proxy.Request{Start: at})
			e.Proxies["r0"] = p
		},
		"a request answered": func(e *Evidence) { e.Proxies["r0"].Requests[0].End = at.Add(time.Second) },
		"an event more": func(e *Evidence) {
			p := e.Proxies["r0"]
			p.Events = append(p.Events, proxy.Event{At: at})
			e.Proxies["r0"] = p
		},
		"a fault recovered": func(e *Evidence) { e.Faults[0].End = at.Add(time.Second) },
		"a fact changed":    func(e *Evidence) { e.Facts["deleted"] = "b" },
		"a log changed":     func(e *Evidence) { e.Logs["external"] = json.RawMessage(`[{}]`) },
	}
	for what, change := range changes {
		e := base()
		change(e)
		if e.Extent() == base().Extent() {
			t.Errorf("%s: the extent did not change", what)
		}
	}
}
