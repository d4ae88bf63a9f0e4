package proxy

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

func TestPassthroughWithoutFaults(t *testing.T) {
	for _, tc := range []struct {
		name      string
		protobuf  bool
		http1     bool
		wantProto string
	}{
		{"json over HTTP/2", false, false, "HTTP/2.0"},
		{"protobuf over HTTP/2", true, false, "HTTP/2.0"},
		{"json over HTTP/1.1", false, true, "HTTP/1.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, cluster(t))
			cfg := e.victimConfig(tc.protobuf)
			if tc.http1 {
				cfg.NextProtos = []string{"http/1.1"}
			}
			for i := range 5 {
				e.createCM(t, fmt.Sprintf("pre-%d", i), nil)
			}
			inf := e.startInformer(t, cfg)
			for i := range 5 {
				if !inf.Has(e.ns, fmt.Sprintf("pre-%d", i)) {
					t.Errorf("informer missing pre-%d after sync", i)
				}
			}
			e.createCM(t, "live", nil)
			eventually(t, 10*time.Second, "the informer to see a live create", func() bool { return inf.Saw("ADD live") })

			// Chunked list: the continue token must survive the proxy.
			victim := kubernetes.NewForConfigOrDie(cfg)
			var names []string
			opts := metav1.ListOptions{Limit: 2}
			for {
				list, err := victim.CoreV1().ConfigMaps(e.ns).List(t.Context(), opts)
				if err != nil {
					t.Fatalf("chunked list through the proxy: %v", err)
				}
				for _, cm := range list.Items {
					names = append(names, cm.Name)
				}
				if list.Continue == "" {
					break
				}
				opts.Continue = list.Continue
			}
			if len(names) < 6 {
				t.Errorf("chunked list returned %v, want at least the 6 made here", names)
			}

			watches := e.requestsSince(0, Match{Verbs: []string{"watch"}, Resource: "configmaps"})
			if len(watches) == 0 {
				t.Fatal("the proxy recorded no configmaps watch")
			}
			if !watches[0].SendInitialEvents {
				t.Errorf("the informer's first watch did not ask for initial events; recorded %+v", watches[0].RequestInfo)
			}
			for _, r := range e.proxy.Requests() {
				if r.Proto != tc.wantProto {
					t.Errorf("request %d used %s, want %s", r.ID, r.Proto, tc.wantProto)
				}
				if r.Fault != "" {
					t.Errorf("request %d has fault %q with no rule active", r.ID, r.Fault)
				}
			}
			var bookmark, added bool
			for _, ev := range e.proxy.Events() {
				if !ev.Delivered {
					t.Errorf("event %+v not delivered with no rule active", ev)
				}
				bookmark = bookmark || ev.Type == "BOOKMARK"
				added = added || (ev.Type == "ADDED" && ev.Name == "live" && ev.Namespace == e.ns && ev.Kind != "")
			}
			if !bookmark {
				t.Error("no BOOKMARK passed: the initial-events-end bookmark should reach the informer")
			}
			if !added {
				t.Error("the proxy did not record the ADDED event of live with its kind and namespace")
			}
		})
	}
}
