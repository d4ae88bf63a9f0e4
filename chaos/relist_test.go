package chaos

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	clocktesting "k8s.io/utils/clock/testing"

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
			if err := stall.End(t.Context()); err != nil {
				t.Fatal(err)
			}
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

// TestForcedRelistOfAWatchListItsStallHeld is a forced relist that cuts a
// watch-list whose initial events a stall still holds: the reflector never
// synced, so it has no resource version to resume from, and watches again
// with another watch-list, which no 410 can answer. It lists afresh by
// itself, which is what the relist is for: Inject must return, naming the
// replica in Detail[DetailRelisted], and remove the 410 rule nobody took.
//
// client-go treats a watch-list that closes within a second of opening
// with no event as a "very short watch" and falls back to a LIST, which
// the 410 then answers on the resumed watch after it; the reflector's
// clock is stepped past that second, so it takes the path a watch-list
// held for longer takes, without the test waiting for it.
func TestForcedRelistOfAWatchListItsStallHeld(t *testing.T) {
	c := cluster(t)
	ns := c.Namespace(t, "relist-unsynced")
	target, p := proxiedTarget(t, c)
	createConfigMap(t, c, ns, "listed")
	configMaps := proxy.Match{Resource: "configmaps"}

	tl := NewTimeline()
	stall, err := Begin(t.Context(), tl, Stall("configmaps", 0), target)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := stall.End(t.Context()); err != nil {
			t.Error(err)
		}
	}()

	clock := clocktesting.NewFakeClock(time.Now())
	kube := kubernetes.NewForConfigOrDie(p.RESTConfig())
	store := cache.NewStore(cache.MetaNamespaceKeyFunc)
	reflector := cache.NewReflectorWithOptions(cache.NewListWatchFromClient(kube.CoreV1().RESTClient(), "configmaps", ns, fields.Everything()),
		&corev1.ConfigMap{}, store, cache.ReflectorOptions{Name: "relist-unsynced", Clock: clock})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); reflector.RunWithContext(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	// The stall holds the watch-list's initial events, the bookmark that
	// ends them last.
	eventually(t, 10*time.Second, "the stall to hold the watch-list's initial events", func() bool { return p.Held() >= 1 })
	watches := requestsOf(p.Requests(), configMaps)
	if len(watches) != 1 || watches[0].Verb != "watch" || !watches[0].SendInitialEvents || watches[0].ResourceVersion != "" {
		t.Fatalf("want the reflector's one watch-list of configmaps, got %+v", watches)
	}
	clock.Step(time.Second)

	before := p.LastRequestID()
	// Injected by hand, not by Inject, so that its Recover, which removes
	// whatever 410 rule is left, comes after the look at what is left.
	relist := &ForcedRelist{Resource: "configmaps", Timeout: 10 * time.Second}
	defer func() {
		if err := relist.Recover(t.Context(), target); err != nil {
			t.Error(err)
		}
	}()
	inj, err := relist.Inject(t.Context(), target)
	if err != nil {
		t.Fatal(err)
	}
	after := requestsOf(p.RequestsAfter(before), configMaps)
	if slices.ContainsFunc(after, func(r proxy.Request) bool { return r.Verb == "list" }) {
		t.Fatalf("the reflector fell back to a LIST, not the path this test is about: %+v", after)
	}
	if len(after) == 0 || !after[0].SendInitialEvents || after[0].ResourceVersion != "" {
		t.Fatalf("want the reflector to watch again with a watch-list from no resource version, got %+v", after)
	}
	if inj.Detail[DetailRelisted] != "r0" {
		t.Errorf("detail relisted=%q, want r0: %v", inj.Detail[DetailRelisted], inj.Detail)
	}
	if len(relist.expire.applied) != 0 {
		t.Errorf("the unused 410 rule %s was left for Recover", Rules(inj)["r0"])
	}
	if err := stall.End(t.Context()); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the reflector to sync from its second watch-list", func() bool {
		_, ok, _ := store.GetByKey(ns + "/listed")
		return ok
	})
}

// requestsOf is the requests of reqs that m selects.
func requestsOf(reqs []proxy.Request, m proxy.Match) []proxy.Request {
	return slices.DeleteFunc(reqs, func(r proxy.Request) bool { return !m.Matches(r.RequestInfo) })
}

// relistProxy is a replica's proxy whose log the test writes: onCut adds
// what the replica asks after its watch is cut.
type relistProxy struct {
	proxy.Controller
	mu      sync.Mutex
	reqs    []proxy.Request
	removed []string
	onCut   []proxy.Request
}

func (p *relistProxy) Replica() string                    { return "r0" }
func (p *relistProxy) AddRule(proxy.Rule) (string, error) { return "expire-1", nil }

func (p *relistProxy) RemoveRule(id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.removed = append(p.removed, id)
	return nil
}

func (p *relistProxy) CutWatches(proxy.Match) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.onCut {
		r.ID, r.Start = uint64(len(p.reqs)+1), time.Now()
		p.reqs = append(p.reqs, r)
	}
	return 1, nil
}

func (p *relistProxy) Requests() []proxy.Request { return p.RequestsAfter(0) }

func (p *relistProxy) RequestsAfter(id uint64) []proxy.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.DeleteFunc(slices.Clone(p.reqs), func(r proxy.Request) bool { return r.ID <= id })
}

// A forced relist counts a replica done when its re-watch took the 410,
// or when it started the resource over after the cut (a watch-list from
// no resource version, then its 410 rule is removed at once); never for a
// watch-list from before the fault, a LIST (the reflector watches from
// its resource version after one, and takes the 410), nor a watch-list of
// another resource.
func TestForcedRelistCountsAFreshListAfterTheCut(t *testing.T) {
	watchList := proxy.Request{RequestInfo: proxy.RequestInfo{Verb: "watch", Resource: "configmaps", SendInitialEvents: true}}
	cases := []struct {
		name     string
		onCut    []proxy.Request
		relisted string // "": the 410 was taken; "-": Inject fails
	}{
		{"the re-watch took the 410", []proxy.Request{{RequestInfo: proxy.RequestInfo{Verb: "watch", Resource: "configmaps", ResourceVersion: "7"}, Fault: "expire-1"}}, ""},
		{"a watch-list", []proxy.Request{watchList}, "r0"},
		{"a watch-list from a resource version took the 410", []proxy.Request{{RequestInfo: proxy.RequestInfo{Verb: "watch", Resource: "configmaps", ResourceVersion: "7", SendInitialEvents: true}, Fault: "expire-1"}}, ""},
		{"a LIST", []proxy.Request{{RequestInfo: proxy.RequestInfo{Verb: "list", Resource: "configmaps"}}}, "-"},
		{"a watch-list of another resource", []proxy.Request{{RequestInfo: proxy.RequestInfo{Verb: "watch", Resource: "secrets", SendInitialEvents: true}}}, "-"},
		{"nothing after the cut", nil, "-"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The replica's first watch-list, before the fault, is no relist.
			first := watchList
			first.ID, first.Start = 1, time.Now()
			p := &relistProxy{reqs: []proxy.Request{first}, onCut: tc.onCut}
			target := Target{Replicas: []Replica{{Identity: "r0", Proxy: p}}}
			// Injected by hand, so the removals are seen before Recover's.
			relist := &ForcedRelist{Resource: "configmaps", Timeout: 200 * time.Millisecond}
			inj, err := relist.Inject(t.Context(), target)
			if tc.relisted == "-" {
				if err == nil {
					t.Fatalf("the relist acted: %v", inj.Detail)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if inj.Detail[DetailRelisted] != tc.relisted {
				t.Errorf("detail relisted=%q, want %q", inj.Detail[DetailRelisted], tc.relisted)
			}
			if removed := tc.relisted != ""; removed != slices.Contains(p.removed, "expire-1") {
				t.Errorf("rules removed by Inject %v; want the unused 410 rule removed: %v", p.removed, removed)
			}
			p.removed = nil
			if err := relist.Recover(t.Context(), target); err != nil {
				t.Fatal(err)
			}
			if tc.relisted != "" && len(p.removed) > 0 {
				t.Errorf("Recover removed %v, which Inject had removed", p.removed)
			}
		})
	}
}
