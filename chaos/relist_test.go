package chaos

import (
	"testing"
	"time"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/cluster/local/localtest"
	"github.com/steadystate-dev/steadystate/internal/victim"
)

// TestSyntheticAndRealExpiryLookAlikeToAnInformer drives the same scenario
// twice: an object is created and deleted while the informer's watch is
// stalled, then the watch is cut and the re-watch gets 410 Expired, once
// from the proxy (ForcedRelist, the watch cache's message) and once from
// the real API server after etcd compaction (watch cache off, so the
// re-watch reaches etcd). In both the informer must relist and never see
// the object.
func TestSyntheticAndRealExpiryLookAlikeToAnInformer(t *testing.T) {
	cases := []struct {
		name    string
		cluster func(t *testing.T) *localtest.Cluster
		expire  func(t *testing.T, tl *Timeline, target Target)
		fromAPI bool // the 410 comes from the API server, not a rule
	}{
		{
			name:    "synthetic 410 from the proxy",
			cluster: cluster,
			expire: func(t *testing.T, tl *Timeline, target Target) {
				if _, err := Inject(t.Context(), tl, &ForcedRelist{Resource: "configmaps"}, target); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name: "real 410 after etcd compaction",
			cluster: func(t *testing.T) *localtest.Cluster {
				return localtest.Start(t, local.Options{Name: "real-410", APIServerArgs: []string{"--watch-cache=false"}})
			},
			expire: func(t *testing.T, tl *Timeline, target Target) {
				for _, f := range []Fault{EtcdCompaction{}, WatchCut{Resource: "configmaps"}} {
					if _, err := Inject(t.Context(), tl, f, target); err != nil {
						t.Fatal(err)
					}
				}
			},
			fromAPI: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.cluster(t)
			ns := c.Namespace(t, "relist")
			target, p := proxiedTarget(t, c)
			inf := startInformer(t, p.RESTConfig(), ns, victim.ConfigMaps)
			createConfigMap(t, c, ns, "steady")
			eventually(t, 10*time.Second, "steady state", func() bool { return inf.Saw("ADD steady") })

			tl := NewTimeline()
			stall, err := Begin(t.Context(), tl, Stall("configmaps", 0), target)
			if err != nil {
				t.Fatal(err)
			}
			createConfigMap(t, c, ns, "ghost")
			deleteConfigMap(t, c, ns, "ghost")
			createConfigMap(t, c, ns, "survivor")
			eventually(t, 10*time.Second, "the stall to hold 3 events", func() bool { return p.Held() >= 3 })
			before := p.LastRequestID()
			tc.expire(t, tl, target)
			stall.End(t.Context())
			eventually(t, 15*time.Second, "the informer to relist and hold survivor", func() bool { return inf.Has(ns, "survivor") })

			if inf.Saw("ADD ghost") || inf.Saw("DELETE ghost") {
				t.Errorf("the informer saw ghost: %v", inf.Seen())
			}
			var expired *proxy.Event
			for _, ev := range p.Events() {
				if ev.Type == "ERROR" && ev.Code == 410 {
					expired = &ev
				}
			}
			if expired == nil || expired.Reason != "Expired" || (expired.Fault == "") != tc.fromAPI {
				t.Fatalf("want one 410 Expired event (from the API server: %v), got %+v", tc.fromAPI, expired)
			}
			relisted := false
			for _, r := range p.Requests()[before:] {
				relisted = relisted || r.Resource == "configmaps" && (r.Verb == "list" || r.Verb == "watch" && r.SendInitialEvents)
			}
			if !relisted {
				t.Error("no relist (LIST, or watch with initial events) after the 410")
			}
			if n := len(tl.Injections()); n < 2 {
				t.Errorf("timeline has %d injections, want the stall and the expiry", n)
			}
		})
	}
}
