package proxy

import (
	"bytes"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ServeHTTP handles one request from the subject: faults first, then the
// API server.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	info := ParseRequest(r.Method, r.URL)
	rec := Request{Replica: p.opts.Replica, RequestInfo: info, Proto: r.Proto, Start: time.Now()}
	rec.ID = p.begin(rec)
	sw := &statusWriter{ResponseWriter: w}
	// A create's body names the object it makes: kept, so that a create
	// whose answer never came (a restart cut it off) still says which
	// object it may have made.
	var sent []byte
	if info.Verb == "create" && info.Subresource == "" && r.Body != nil {
		sent, _ = io.ReadAll(io.LimitReader(r.Body, maxHolderBody))
		r.Body = readCloser{io.MultiReader(bytes.NewReader(sent), r.Body), r.Body}
	}
	p.active.Add(1)
	defer p.active.Add(-1)
	defer func() {
		v := recover()
		rec.End, rec.Code = time.Now(), sw.code
		if v != nil {
			rec.Code = 0 // the connection was reset
		}
		if rec.Code == 0 && rec.Object == nil && sent != nil {
			if o := answeredObject(r.Header, sent); o != nil {
				rec.Object = &ObjectRef{Name: o.Name}
			}
		}
		p.finish(rec)
		if v != nil {
			panic(v)
		}
	}()
	if p.sealed.Load() {
		rec.Fault = SealedFault
		panic(http.ErrAbortHandler)
	}
	if id, blackhole, ok := p.rules.partition(); ok {
		rec.Fault = id
		if blackhole {
			p.waitWhileRule(r, id)
		}
		panic(http.ErrAbortHandler)
	}
	if rule, id, ok := p.rules.take(Respond, info, nil); ok {
		rec.Fault = id
		if rule.Conflict {
			rec.Conflict = p.conflicting(r.Context(), info)
		}
		respond(sw, rule.Code, info)
		return
	}
	if err := p.scope.confine(r, info); err != nil {
		writeStatus(sw, http.StatusBadGateway, err.Error())
		return
	}
	if info.Verb == "watch" {
		p.serveWatch(sw, r, info, &rec)
		return
	}
	if rule, id, ok := p.rules.take(Slow, info, nil); ok {
		rec.Fault = id
		select {
		case <-time.After(rule.Delay.Duration):
		case <-r.Context().Done():
			panic(http.ErrAbortHandler)
		}
	}
	answersObject := info.Subresource == "" && (info.Verb == "create" || info.Verb == "update" || info.Verb == "patch")
	if isLeaseWrite(info) || answersObject {
		sw.tap = &bodyTap{}
	}
	sw.tapErrors = info.IsWrite()
	p.reverse.ServeHTTP(sw, r)
	switch {
	case sw.tap == nil:
	case sw.code >= 200 && sw.code <= 299:
		if isLeaseWrite(info) {
			rec.Holder = leaseHolder(sw.Header(), sw.tap.buf.Bytes())
		}
		if answersObject {
			rec.Object = answeredObject(sw.Header(), sw.tap.buf.Bytes())
		}
	case sw.code >= 400:
		rec.Message = statusMessage(sw.Header(), sw.tap.buf.Bytes())
	}
}

// waitWhileRule blocks until the rule is gone or the client gives up.
func (p *Proxy) waitWhileRule(r *http.Request, id string) {
	for {
		changed := p.rules.watchChanges()
		if !p.rules.has(id) {
			return
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		}
	}
}

// respond answers with an API Status for code, as the API server would.
func respond(w http.ResponseWriter, code int, info RequestInfo) {
	gr := schema.GroupResource{Group: info.Group, Resource: info.Resource}
	status := apierrors.NewGenericServerResponse(code, info.Verb, gr, info.Name, "injected by the steadystate fault proxy", 1, true).ErrStatus
	if code == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "1")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(&status) // a client gone is nothing to act on
}

func writeStatus(w http.ResponseWriter, code int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message, "code": code,
	})
}

// readCloser reads from one reader and closes another: a request body
// read in part, put back in front of the rest.
type readCloser struct {
	io.Reader
	io.Closer
}

// statusWriter remembers the status code and lets http.ResponseController
// reach the underlying writer (flushing, hijacking for upgrades).
type statusWriter struct {
	http.ResponseWriter
	code int
	// tap, when set, keeps the start of the body.
	tap *bodyTap
	// tapErrors sets tap when the answer is an error (4xx, 5xx).
	tapErrors bool
}

func (s *statusWriter) WriteHeader(code int) {
	if s.code == 0 {
		s.code = code
		if s.tapErrors && code >= 400 && s.tap == nil {
			s.tap = &bodyTap{}
		}
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.code == 0 {
		s.code = http.StatusOK
	}
	if s.tap != nil {
		s.tap.keep(b)
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func (s *statusWriter) Flush() { http.NewResponseController(s.ResponseWriter).Flush() }

// hopHeaders are connection-level headers never copied between hops.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Transfer-Encoding", "Upgrade", "Te", "Trailer", "Content-Length"}

func copyHeader(dst, src http.Header) {
	for k, vs := range src {
		dst[k] = append([]string(nil), vs...)
	}
	for _, h := range hopHeaders {
		dst.Del(h)
	}
}

func quietLog() *log.Logger { return log.New(io.Discard, "", 0) }
