package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Controller is what drives a proxy: *Proxy in the same process, *Remote
// over HTTP for a proxy running elsewhere (beside a controller in a pod).
// Every method that acts on the proxy returns an error, so a proxy that
// cannot be reached fails the fault, never the process. The log readers
// return what could be read; a proxy whose log could not be read says so
// with a Complete() error method (Remote, Mirror), which evidence reports
// as an incomplete log, so nothing is judged on it.
type Controller interface {
	Replica() string
	AddRule(Rule) (string, error)
	RemoveRule(id string) error
	ClearRules() error
	CutWatches(Match) (int, error)
	ResetWatches(Match) (int, error)
	Requests() []Request
	// RequestsAfter is the requests with an ID above id: what a caller
	// polling the log has not seen yet.
	RequestsAfter(id uint64) []Request
	// Logged returns a channel closed once the request log may have
	// changed since the call (a request begun or answered): a caller
	// waiting for a request reads the log after taking it, and again
	// once it is closed.
	Logged() <-chan struct{}
	Events() []Event
}

var (
	_ Controller = (*Proxy)(nil)
	_ Controller = (*Remote)(nil)
)

// The control API, served by Handler:
//
//	GET    /healthz           ok
//	GET    /v1/replica        the replica identity
//	POST   /v1/rules          Rule as JSON          -> {"id": "..."}
//	DELETE /v1/rules/{id}     end one rule
//	DELETE /v1/rules          end every rule
//	POST   /v1/cut            Match as JSON         -> {"count": N}
//	POST   /v1/reset          Match as JSON         -> {"count": N}
//	GET    /v1/requests       []Request (?after=ID: those with a larger ID)
//	GET    /v1/events         []Event
//	GET    /v1/log            Log: both, and whether they are final, at one moment
//	POST   /v1/seal           seal the proxy (see Proxy.Seal)
//
// Errors are {"error": "..."} with status 400.

// Handler serves the control API for p. Serve it on an address the
// harness can reach; it has no authentication of its own.
func Handler(p *Proxy) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	mux.HandleFunc("GET /v1/replica", func(w http.ResponseWriter, _ *http.Request) { reply(w, p.Replica()) })
	mux.HandleFunc("POST /v1/rules", func(w http.ResponseWriter, r *http.Request) {
		var rule Rule
		if !decode(w, r, &rule) {
			return
		}
		id, err := p.AddRule(rule)
		if err != nil {
			fail(w, err)
			return
		}
		reply(w, map[string]string{"id": id})
	})
	mux.HandleFunc("DELETE /v1/rules/{id}", func(w http.ResponseWriter, r *http.Request) {
		if err := p.RemoveRule(r.PathValue("id")); err != nil {
			fail(w, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("DELETE /v1/rules", func(w http.ResponseWriter, _ *http.Request) {
		if err := p.ClearRules(); err != nil {
			fail(w, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	cut := func(f func(Match) (int, error)) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			var m Match
			if !decode(w, r, &m) {
				return
			}
			n, err := f(m)
			if err != nil {
				fail(w, err)
				return
			}
			reply(w, map[string]int{"count": n})
		}
	}
	mux.HandleFunc("POST /v1/cut", cut(p.CutWatches))
	mux.HandleFunc("POST /v1/reset", cut(p.ResetWatches))
	mux.HandleFunc("GET /v1/requests", func(w http.ResponseWriter, r *http.Request) {
		var after uint64
		if s := r.URL.Query().Get("after"); s != "" {
			var err error
			if after, err = strconv.ParseUint(s, 10, 64); err != nil {
				fail(w, fmt.Errorf("after=%q is not a request ID", s))
				return
			}
		}
		reply(w, p.RequestsAfter(after))
	})
	mux.HandleFunc("GET /v1/events", func(w http.ResponseWriter, _ *http.Request) { reply(w, p.Events()) })
	mux.HandleFunc("GET /v1/log", func(w http.ResponseWriter, _ *http.Request) {
		final := p.Sealed() // read first: a log read after sealing is final
		reply(w, Log{Requests: p.Requests(), Events: p.Events(), Final: final})
	})
	mux.HandleFunc("POST /v1/seal", func(w http.ResponseWriter, _ *http.Request) {
		p.Seal()
		w.WriteHeader(http.StatusNoContent)
	})
	return mux
}

func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil && err != io.EOF {
		fail(w, fmt.Errorf("request body does not parse: %w", err))
		return false
	}
	return true
}

// reply and fail answer the control client; an answer it never reads (it
// went away) is nothing the proxy can act on.
func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
}

// Log is a proxy's request and event logs read at one moment; Final when
// the proxy was sealed before they were read, so they will not change.
type Log struct {
	Requests []Request `json:"requests"`
	Events   []Event   `json:"events"`
	Final    bool      `json:"final"`
}

// Remote drives a proxy through its control API. Base is the API's root URL;
// Client defaults to http.DefaultClient (for a proxy in a pod, a client
// whose requests go through the API server's pod proxy subresource).
// Nothing panics on a transport error: the methods that act return it,
// and a log that could not be read is answered empty and kept for
// Complete, so evidence read from it is incomplete, never judged.
type Remote struct {
	Base   string
	Client *http.Client

	mu sync.Mutex
	// replica is fetched once; err is the last log read's failure.
	replica string
	err     error
}

func (c *Remote) do(method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		data, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, strings.TrimSuffix(c.Base, "/")+path, body)
	if err != nil {
		return err
	}
	client := c.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("fault proxy control %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		// An answer without the error's JSON still fails, by its status.
		var e struct{ Error string }
		_ = json.NewDecoder(resp.Body).Decode(&e)
		return fmt.Errorf("fault proxy control %s %s: HTTP %d: %s", method, path, resp.StatusCode, e.Error)
	}
	if out != nil {
		return json.NewDecoder(resp.Body).Decode(out)
	}
	return nil
}

// read gets a log at path into out, keeping the failure for Complete.
func (c *Remote) read(path string, out any) {
	err := c.do(http.MethodGet, path, nil, out)
	c.mu.Lock()
	c.err = err
	c.mu.Unlock()
}

// Complete is the last log read's failure, nil when it read.
func (c *Remote) Complete() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return fmt.Errorf("the proxy's log could not be read: %w", c.err)
	}
	return nil
}

// Replica is the proxy's replica identity, fetched at its first use; the
// control API's address when the proxy cannot be reached.
func (c *Remote) Replica() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.replica == "" {
		var id string
		if err := c.do(http.MethodGet, "/v1/replica", nil, &id); err != nil {
			return c.Base
		}
		c.replica = id
	}
	return c.replica
}

// AddRule activates a fault and returns its ID.
func (c *Remote) AddRule(r Rule) (string, error) {
	var out struct{ ID string }
	if err := c.do(http.MethodPost, "/v1/rules", r, &out); err != nil {
		return "", err
	}
	return out.ID, nil
}

// RemoveRule ends a fault.
func (c *Remote) RemoveRule(id string) error {
	return c.do(http.MethodDelete, "/v1/rules/"+id, nil, nil)
}

// ClearRules ends every fault.
func (c *Remote) ClearRules() error { return c.do(http.MethodDelete, "/v1/rules", nil, nil) }

// CutWatches ends matching watches cleanly.
func (c *Remote) CutWatches(m Match) (int, error) { return c.count("/v1/cut", m) }

// ResetWatches resets matching watches.
func (c *Remote) ResetWatches(m Match) (int, error) { return c.count("/v1/reset", m) }

func (c *Remote) count(path string, m Match) (int, error) {
	var out struct{ Count int }
	err := c.do(http.MethodPost, path, m, &out)
	return out.Count, err
}

// Requests returns the proxy's request log (empty when it could not be
// read: see Complete).
func (c *Remote) Requests() []Request {
	var out []Request
	c.read("/v1/requests", &out)
	return out
}

// RequestsAfter returns the requests with an ID above id.
func (c *Remote) RequestsAfter(id uint64) []Request {
	var out []Request
	c.read("/v1/requests?after="+strconv.FormatUint(id, 10), &out)
	return out
}

// remotePoll is how often a caller waiting on Remote.Logged reads a
// remote proxy's log again.
const remotePoll = 5 * time.Millisecond

// Logged returns a channel closed after remotePoll: a remote proxy's log
// is read over HTTP and says nothing when it changes, so a caller
// waiting for a request polls it that often.
func (c *Remote) Logged() <-chan struct{} {
	ch := make(chan struct{})
	time.AfterFunc(remotePoll, func() { close(ch) })
	return ch
}

// Seal seals the proxy (see Proxy.Seal).
func (c *Remote) Seal() error { return c.do(http.MethodPost, "/v1/seal", nil, nil) }

// Log reads both logs at one moment.
func (c *Remote) Log() (Log, error) {
	var l Log
	err := c.do(http.MethodGet, "/v1/log", nil, &l)
	return l, err
}

// Events returns the proxy's event log (empty when it could not be read:
// see Complete).
func (c *Remote) Events() []Event {
	var out []Event
	c.read("/v1/events", &out)
	return out
}
