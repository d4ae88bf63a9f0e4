package proxy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

func TestRemoteDrivesTheProxyOverHTTP(t *testing.T) {
	e := newEnv(t, cluster(t))
	srv := httptest.NewServer(Handler(e.proxy))
	defer srv.Close()
	remote := &Remote{Base: srv.URL}
	if got := remote.Replica(); got != "victim-0" {
		t.Errorf("replica = %q", got)
	}

	id, err := remote.AddRule(Rule{Action: Respond, Code: 500, Match: Match{Verbs: []string{"get"}, Resource: "namespaces"}})
	if err != nil {
		t.Fatal(err)
	}
	victim := kubernetes.NewForConfigOrDie(e.victimConfig(false))
	if _, err := victim.CoreV1().Namespaces().Get(t.Context(), e.ns, metav1.GetOptions{}); err == nil {
		t.Error("the rule added over HTTP did not act")
	}
	if err := remote.RemoveRule(id); err != nil {
		t.Fatal(err)
	}
	if _, err := victim.CoreV1().Namespaces().Get(t.Context(), e.ns, metav1.GetOptions{}); err != nil {
		t.Errorf("the rule removed over HTTP still acts: %v", err)
	}

	inf := e.startInformer(t, e.victimConfig(false))
	e.createCM(t, "seen", nil)
	eventually(t, 10*time.Second, "an event", func() bool { return inf.Saw("ADD seen") })
	if n, err := remote.CutWatches(configMaps); n != 1 || err != nil {
		t.Errorf("cut over HTTP = %d, %v; want 1", n, err)
	}
	if reqs := remote.Requests(); len(reqs) == 0 || reqs[0].Replica != "victim-0" {
		t.Errorf("requests over HTTP = %+v", reqs)
	}
	if evs := remote.Events(); len(evs) == 0 {
		t.Error("no events over HTTP")
	}

	if _, err := remote.AddRule(Rule{Action: "explode"}); err == nil || !strings.Contains(err.Error(), `unknown action "explode"`) {
		t.Errorf("a bad rule over HTTP: %v", err)
	}
	if err := remote.ClearRules(); err != nil {
		t.Error(err)
	}
	if err := remote.Complete(); err != nil {
		t.Errorf("every log read, yet: %v", err)
	}
}

// A proxy that cannot be reached fails what drives it with an error and
// leaves its log incomplete: nothing panics (before, every method without
// an error result panicked on a transport error).
func TestRemoteUnreachableReturnsErrors(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close()
	remote := &Remote{Base: base}
	if got := remote.Replica(); got != base {
		t.Errorf("replica of an unreachable proxy = %q, want its address", got)
	}
	if err := remote.RemoveRule("r1"); err == nil {
		t.Error("RemoveRule: no error")
	}
	if err := remote.ClearRules(); err == nil {
		t.Error("ClearRules: no error")
	}
	if _, err := remote.CutWatches(Match{}); err == nil {
		t.Error("CutWatches: no error")
	}
	if _, err := remote.ResetWatches(Match{}); err == nil {
		t.Error("ResetWatches: no error")
	}
	if reqs, evs := remote.Requests(), remote.Events(); len(reqs)+len(evs) != 0 {
		t.Errorf("logs of an unreachable proxy: %d requests, %d events", len(reqs), len(evs))
	}
	if err := remote.Complete(); err == nil || !strings.Contains(err.Error(), "could not be read") {
		t.Errorf("Complete after a failed read: %v", err)
	}
}

// TestMirrorOutlivesTheProxy reads a proxy's logs through a Mirror, stops
// the proxy's control API, and still has the logs.
func TestMirrorOutlivesTheProxy(t *testing.T) {
	e := newEnv(t, cluster(t))
	srv := httptest.NewServer(Handler(e.proxy))
	m := NewMirror(&Remote{Base: srv.URL}, 50*time.Millisecond)
	defer m.Close()
	victim := kubernetes.NewForConfigOrDie(e.victimConfig(false))
	if _, err := victim.CoreV1().Namespaces().Get(t.Context(), e.ns, metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	seen := func(reqs []Request) bool {
		for _, r := range reqs {
			if r.Resource == "namespaces" && r.Name == e.ns {
				return true
			}
		}
		return false
	}
	eventually(t, 5*time.Second, "the mirror to copy the request", func() bool { return seen(m.Requests()) })
	if err := m.Complete(); err != nil {
		t.Errorf("a fresh copy is incomplete: %v", err)
	}
	srv.Close()
	if !seen(m.Requests()) {
		t.Fatal("the mirror lost the request once the proxy stopped answering")
	}
	if err := m.Complete(); err == nil || !strings.Contains(err.Error(), "stopped answering before the log was final") {
		t.Errorf("a copy older than the question must be incomplete: %v", err)
	}
}

// TestSealedMirrorIsComplete: a sealed proxy refuses the replica from then
// on, and the mirror's final copy stays complete after the proxy is gone.
func TestSealedMirrorIsComplete(t *testing.T) {
	e := newEnv(t, cluster(t))
	srv := httptest.NewServer(Handler(e.proxy))
	m := NewMirror(&Remote{Base: srv.URL}, time.Hour)
	defer m.Close()
	victim := kubernetes.NewForConfigOrDie(e.victimConfig(false))
	if _, err := victim.CoreV1().Namespaces().Get(t.Context(), e.ns, metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := m.Seal(); err != nil {
		t.Fatal(err)
	}
	if _, err := victim.CoreV1().Namespaces().Get(t.Context(), e.ns, metav1.GetOptions{}); err == nil {
		t.Error("a sealed proxy served the replica")
	}
	srv.Close()
	if err := m.Complete(); err != nil {
		t.Errorf("the final copy is incomplete: %v", err)
	}
	if reqs := m.Requests(); len(reqs) != 1 || reqs[0].Code != 200 {
		t.Errorf("final copy = %+v, want the one request made before the seal", reqs)
	}
}

// A remote proxy's Logged cannot hear the log change: it closes on its
// own, after remotePoll, so a waiter reads the log again as it polled
// before; each call gives a channel of its own.
func TestRemoteLoggedClosesOnItsOwn(t *testing.T) {
	remote := &Remote{Base: "http://127.0.0.1:1"}
	first, second := remote.Logged(), remote.Logged()
	if first == second {
		t.Fatal("two calls of Remote.Logged gave one channel")
	}
	// A bound far past remotePoll, so that a channel that never closes
	// fails the test instead of hanging it.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for _, ch := range []<-chan struct{}{first, second} {
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatal("Remote.Logged's channel did not close")
		}
	}
}
