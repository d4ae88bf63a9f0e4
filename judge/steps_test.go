package judge

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// The exploration premise needs the count of fault steps that ran: without
// it, it is not evaluated; with more steps than the timeline records, a
// fault went unrecorded and it is broken.
func TestStepsActedNeedsItsCount(t *testing.T) {
	e := &evidence.Evidence{Facts: map[string]string{}, Faults: []chaos.Injection{{Fault: "watch-cut"}}}
	if err := StepsActed(e); !errors.Is(err, oracle.ErrNotEvaluated) {
		t.Errorf("no count: %v", err)
	}
	e.Facts[FactFaultSteps.Name] = "one"
	if err := StepsActed(e); !errors.Is(err, oracle.ErrNotEvaluated) {
		t.Errorf("a count that is not one: %v", err)
	}
	e.Facts[FactFaultSteps.Name] = "2"
	if err := StepsActed(e); err == nil || errors.Is(err, oracle.ErrNotEvaluated) || !strings.Contains(err.Error(), "2 fault step(s) ran and the timeline records 1") {
		t.Errorf("a step missing from the timeline: %v", err)
	}
	e.Facts[FactFaultSteps.Name] = "1"
	if err := StepsActed(e); err != nil {
		t.Errorf("the one step on the timeline: %v", err)
	}
}

// A write refused as a real conflict whose object could not be written
// first makes the premise broken, naming it: its 409 came with no change
// behind it. One written, and a create's (a 409 there says the object
// exists: nothing to write), do not.
func TestStepsActedNeedsTheConflictWritten(t *testing.T) {
	at := time.Date(2026, 11, 30, 20, 46, 54, 870e6, time.UTC)
	refused := func(verb string, c *proxy.ConflictWrite) proxy.Request {
		return proxy.Request{RequestInfo: proxy.RequestInfo{Verb: verb, Resource: "secrets", Namespace: "ns", Name: "builder-token"}, Code: 409, Fault: "respond-1", Conflict: c, Start: at}
	}
	e := &evidence.Evidence{Facts: map[string]string{FactFaultSteps.Name: "1"}, Faults: []chaos.Injection{{Fault: "respond-409"}},
		Proxies: map[string]evidence.ProxyLog{"tokens-0": {Requests: []proxy.Request{
			refused("update", &proxy.ConflictWrite{ResourceVersions: []string{"357", "358"}}),
			refused("create", &proxy.ConflictWrite{NotWritten: "a create: its 409 says the object exists, and there is none to write"}),
			{RequestInfo: proxy.RequestInfo{Verb: "update", Resource: "secrets", Name: "other"}, Code: 409, Fault: "respond-2"},
		}}}}
	if err := StepsActed(e); err != nil {
		t.Errorf("a conflict written, a create's, a 409 with no conflict meant: %v", err)
	}
	log := e.Proxies["tokens-0"]
	log.Requests = append(log.Requests, refused("patch", &proxy.ConflictWrite{NotWritten: `secrets "builder-token" is forbidden`}))
	e.Proxies["tokens-0"] = log
	want := `tokens-0's patch of secrets builder-token at 20:46:54.870 was answered 409 by respond-1 with no write of its object behind it: secrets "builder-token" is forbidden`
	if err := StepsActed(e); err == nil || errors.Is(err, oracle.ErrNotEvaluated) || err.Error() != want {
		t.Errorf("a conflict not written: %v, want %q", err, want)
	}
	log.Requests = []proxy.Request{refused("deletecollection", &proxy.ConflictWrite{NotWritten: "the request names no object"})}
	e.Proxies["tokens-0"] = log
	if err := StepsActed(e); err == nil || !strings.Contains(err.Error(), "deletecollection of secrets") {
		t.Errorf("a delete of a collection answered 409: %v, want it named", err)
	}
}
