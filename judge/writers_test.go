package judge

import (
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

func TestValidHolder(t *testing.T) {
	base := time.Unix(100, 0)
	ts := []term{
		{holder: "a", renew: base, until: base.Add(3 * time.Second)},
		{holder: "a", renew: base.Add(2 * time.Second), until: base.Add(5 * time.Second)},
		{holder: "b", renew: base.Add(8 * time.Second), until: base.Add(11 * time.Second)},
	}
	for _, tc := range []struct {
		at   time.Duration
		want string
	}{
		{-time.Second, ""}, {time.Second, "a"}, {4 * time.Second, "a"}, {6 * time.Second, ""}, {9 * time.Second, "b"}, {12 * time.Second, ""},
	} {
		if got := validHolder(ts, base.Add(tc.at)); got != tc.want {
			t.Errorf("holder at %s = %q, want %q", tc.at, got, tc.want)
		}
	}
}

// leaseEvent is the Lease held by holder from renew for 3s.
func leaseEvent(holder string, renew time.Time) oracle.Event {
	return oracle.Event{At: renew, Type: "MODIFIED", Key: "ns/lease", Object: &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"namespace": "ns", "name": "lease"},
		"spec":     map[string]any{"holderIdentity": holder, "renewTime": renew.Format(time.RFC3339Nano), "leaseDurationSeconds": int64(3)},
	}}}
}

// TestOnlyHolderWritesLearnsIdentities: replicas that choose their own
// holder identity (host_UUID) are matched to the Lease by what their Lease
// writes were answered with. The holder's write holds; the same write by
// the replica that never held the Lease breaks the property, and the
// message names both replicas.
func TestOnlyHolderWritesLearnsIdentities(t *testing.T) {
	base := time.Unix(100, 0)
	lease := oracle.NewHistory()
	lease.Add(leaseEvent("host_aaaa", base))
	election := func(holder string, at time.Time) proxy.Request {
		return proxy.Request{RequestInfo: proxy.RequestInfo{Verb: "update", Group: "coordination.k8s.io", Resource: "leases", Name: "lease"}, Code: 200, Holder: holder, Start: at}
	}
	write := proxy.Request{RequestInfo: proxy.RequestInfo{Verb: "create", Resource: "configmaps"}, Code: 201, Start: base.Add(time.Second)}
	leader := []proxy.Request{election("host_aaaa", base), write}
	follower := []proxy.Request{{RequestInfo: proxy.RequestInfo{Verb: "get", Group: "coordination.k8s.io", Resource: "leases", Name: "lease"}, Code: 200, Start: base}}

	if err := OnlyHolderWrites(lease, "ns/lease", nil, map[string][]proxy.Request{"vm-0": leader, "vm-1": follower}); err != nil {
		t.Errorf("the holder's own write was judged broken: %v", err)
	}
	err := OnlyHolderWrites(lease, "ns/lease", nil, map[string][]proxy.Request{"vm-0": leader[:1], "vm-1": append(follower, write)})
	if !errors.Is(err, ErrTwoWriters) || !strings.Contains(err.Error(), "vm-1 made create a new configmaps object") || !strings.Contains(err.Error(), "while vm-0 (host_aaaa) held") {
		t.Errorf("the follower's write: got %v, want two writers naming vm-1 and vm-0 (host_aaaa)", err)
	}
}

// TestLeaderOnlyScopes: the default covers every successful write but
// Leases and Events; a subject's leaderOnly covers only the resources it
// names, a bare resource with its subresources, a subresource alone.
func TestLeaderOnlyScopes(t *testing.T) {
	req := func(verb, group, resource, sub string, code int) proxy.Request {
		return proxy.Request{RequestInfo: proxy.RequestInfo{Verb: verb, Group: group, Resource: resource, Subresource: sub}, Code: code}
	}
	for _, tc := range []struct {
		scope LeaderOnly
		r     proxy.Request
		want  bool
	}{
		{nil, req("create", "", "configmaps", "", 201), true},
		{nil, req("patch", "", "pods", "status", 200), true},
		{nil, req("update", "coordination.k8s.io", "leases", "", 200), false},
		{nil, req("create", "", "events", "", 201), false},
		{nil, req("create", "", "configmaps", "", 409), false},
		{nil, req("get", "", "configmaps", "", 200), false},
		{LeaderOnly{"configmaps"}, req("create", "", "configmaps", "", 201), true},
		{LeaderOnly{"configmaps"}, req("patch", "", "pods", "status", 200), false},
		{LeaderOnly{"widgets.example.com"}, req("update", "example.com", "widgets", "status", 200), true},
		{LeaderOnly{"widgets.example.com"}, req("update", "other.example.com", "widgets", "", 200), false},
		{LeaderOnly{"widgets.example.com/status"}, req("update", "example.com", "widgets", "", 200), false},
		{LeaderOnly{"widgets.example.com/status"}, req("update", "example.com", "widgets", "status", 200), true},
		{LeaderOnly{"events"}, req("create", "", "events", "", 201), true},
	} {
		if got := tc.scope.Covers(tc.r); got != tc.want {
			t.Errorf("%v covers %s %s/%s (%d) = %v, want %v", tc.scope, tc.r.Verb, tc.r.GroupResource(), tc.r.Subresource, tc.r.Code, got, tc.want)
		}
	}
	if back, err := FactLeaderOnly.Parse(FactLeaderOnly.Text(Names(LeaderOnly{"configmaps", "pods/status"}))); err != nil || len(back) != 2 || back[1] != "pods/status" {
		t.Errorf("a trip through the fact gave %v, %v", back, err)
	}
	if back, _ := FactLeaderOnly.Parse(""); LeaderOnly(back) != nil {
		t.Error("an empty fact is not the default")
	}
}
