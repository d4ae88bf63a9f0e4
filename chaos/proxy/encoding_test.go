package proxy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// TestWatchInAnUnreadableEncodingIsRefused: a watch the API server answers
// in CBOR cannot be faulted or recorded event by event, so the proxy
// refuses it with a message saying what to do, and records the refusal.
func TestWatchInAnUnreadableEncodingIsRefused(t *testing.T) {
	upstream := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/cbor")
		w.WriteHeader(http.StatusOK)
		// The CBOR self-described tag. The proxy refuses the watch from its
		// Content-Type and hangs up without reading the body, so a failed
		// write is no failure of the test.
		_, _ = w.Write([]byte{0xd9, 0xd9, 0xf7})
	}))
	defer upstream.Close()
	p, err := Start(Options{Upstream: &rest.Config{Host: upstream.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}, Replica: "r"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_, err = kubernetes.NewForConfigOrDie(p.RESTConfig()).CoreV1().Pods("ns").Watch(context.Background(), metav1.ListOptions{ResourceVersion: "1"})
	if err == nil || !strings.Contains(err.Error(), "a watch answered in application/cbor cannot be faulted or recorded") {
		t.Fatalf("watch error = %v, want the proxy's refusal", err)
	}
	reqs := p.Requests()
	if len(reqs) != 1 || reqs[0].Fault != RefusedEncoding || reqs[0].Code != http.StatusNotAcceptable {
		t.Fatalf("recorded %+v, want one watch refused with 406", reqs)
	}
}
