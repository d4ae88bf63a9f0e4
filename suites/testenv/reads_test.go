package testenv

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// resettingServer is an HTTP/2 server that aborts its first resets requests
// (it resets their streams) and answers 200 after that.
func resettingServer(t *testing.T, resets int32) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1) <= resets {
			panic(http.ErrAbortHandler)
		}
		_, _ = w.Write([]byte("ok"))
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, &calls
}

func clientFor(t *testing.T, srv *httptest.Server) *http.Client {
	t.Helper()
	cfg := &rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return retryReads{next: rt, backoff: time.Millisecond} })
	c, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func do(t *testing.T, c *http.Client, method, url string) error {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	return err
}

func TestRetryReadsSendsAResetReadAgain(t *testing.T) {
	srv, calls := resettingServer(t, 2)
	if err := do(t, clientFor(t, srv), http.MethodGet, srv.URL); err != nil {
		t.Fatalf("a GET reset twice and then answered: %v", err)
	}
	if got := calls.Load(); got != 3 {
		t.Fatalf("the server saw %d calls, want 3 (two resets, one answer)", got)
	}
}

func TestRetryReadsGivesUp(t *testing.T) {
	srv, calls := resettingServer(t, readTries)
	err := do(t, clientFor(t, srv), http.MethodGet, srv.URL)
	if err == nil || !strings.Contains(err.Error(), "INTERNAL_ERROR") {
		t.Fatalf("a GET reset on every try: got %v, want the last reset", err)
	}
	if got := calls.Load(); got != readTries {
		t.Fatalf("the server saw %d calls, want %d", got, readTries)
	}
}

func TestRetryReadsNeverSendsAWriteTwice(t *testing.T) {
	srv, calls := resettingServer(t, 1)
	if err := do(t, clientFor(t, srv), http.MethodPost, srv.URL); err == nil {
		t.Fatal("a POST the server reset succeeded: it was sent again")
	}
	if got := calls.Load(); got != 1 {
		t.Fatalf("the server saw %d calls, want 1", got)
	}
}
