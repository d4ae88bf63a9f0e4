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
)

// Controller is what drives a proxy: *Proxy in the same process, *Remote
// over HTTP for a proxy running elsewhere (beside a controller in a pod).
type Controller interface {
	Replica() string
	AddRule(Rule) (string, error)
	RemoveRule(id string)
	ClearRules()
	CutWatches(Match) int
	ResetWatches(Match) int
	Requests() []Request
	// RequestsAfter is the requests with an ID above id: what a caller
	// polling the log has not seen yet.
	RequestsAfter(id uint64) []Request
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
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
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
		p.RemoveRule(r.PathValue("id"))
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("DELETE /v1/rules", func(w http.ResponseWriter, _ *http.Request) {
		p.ClearRules()
		w.WriteHeader(http.StatusNoContent)
	})
	cut := func(f func(Match) int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			var m Match
			if !decode(w, r, &m) {
				return
			}
			reply(w, map[string]int{"count": f(m)})
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

func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
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
// Methods without an error result panic on transport errors, so a lost
// proxy fails the test that drives it instead of passing silently.
type Remote struct {
	Base   string
	Client *http.Client
	// replica is fetched once.
	replica string
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
		var e struct{ Error string }
		json.NewDecoder(resp.Body).Decode(&e)
		return fmt.Errorf("fault proxy control %s %s: HTTP %d: %s", method, path, resp.StatusCode, e.Error)
	}
	if out != nil {
		return json.NewDecoder(resp.Body).Decode(out)
	}
	return nil
}

func (c *Remote) must(err error) {
	if err != nil {
		panic(err)
	}
}

// Replica is the proxy's replica identity.
func (c *Remote) Replica() string {
	if c.replica == "" {
		c.must(c.do(http.MethodGet, "/v1/replica", nil, &c.replica))
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
func (c *Remote) RemoveRule(id string) { c.must(c.do(http.MethodDelete, "/v1/rules/"+id, nil, nil)) }

// ClearRules ends every fault.
func (c *Remote) ClearRules() { c.must(c.do(http.MethodDelete, "/v1/rules", nil, nil)) }

// CutWatches ends matching watches cleanly.
func (c *Remote) CutWatches(m Match) int { return c.count("/v1/cut", m) }

// ResetWatches resets matching watches.
func (c *Remote) ResetWatches(m Match) int { return c.count("/v1/reset", m) }

func (c *Remote) count(path string, m Match) int {
	var out struct{ Count int }
	c.must(c.do(http.MethodPost, path, m, &out))
	return out.Count
}

// Requests returns the proxy's request log.
func (c *Remote) Requests() []Request {
	var out []Request
	c.must(c.do(http.MethodGet, "/v1/requests", nil, &out))
	return out
}

// RequestsAfter returns the requests with an ID above id.
func (c *Remote) RequestsAfter(id uint64) []Request {
	var out []Request
	c.must(c.do(http.MethodGet, "/v1/requests?after="+strconv.FormatUint(id, 10), nil, &out))
	return out
}

// Seal seals the proxy (see Proxy.Seal).
func (c *Remote) Seal() error { return c.do(http.MethodPost, "/v1/seal", nil, nil) }

// Log reads both logs at one moment.
func (c *Remote) Log() (Log, error) {
	var l Log
	err := c.do(http.MethodGet, "/v1/log", nil, &l)
	return l, err
}

// Events returns the proxy's event log.
func (c *Remote) Events() []Event {
	var out []Event
	c.must(c.do(http.MethodGet, "/v1/events", nil, &out))
	return out
}
