package testenv

import (
	"errors"
	"net/http"
	"time"

	"golang.org/x/net/http2"
)

// readTries bounds how often retryReads sends one read; the waits between
// tries double from readBackoff (0.1 s, 0.2 s, 0.4 s, 0.8 s).
const (
	readTries   = 5
	readBackoff = 100 * time.Millisecond
)

// retryReads sends a harness read (a GET, which has no body and changes
// nothing) again when the API server reset its HTTP/2 stream before
// answering: the server aborts a request that way when its handler panics
// or is cut off, and an error in the harness's own reads (the recorder's
// first list, a readiness poll) would otherwise end a spec in an error
// that says nothing of the subject. client-go retries a GET after a lost
// connection, not after a reset stream. Writes are never sent twice, and
// the subjects' own requests do not pass here (Clients.Subject).
type retryReads struct {
	next http.RoundTripper
	// backoff is the first wait between tries (readBackoff when zero).
	backoff time.Duration
}

func (r retryReads) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet || (req.Body != nil && req.Body != http.NoBody) {
		return r.next.RoundTrip(req)
	}
	wait := r.backoff
	if wait == 0 {
		wait = readBackoff
	}
	for try := 1; ; try++ {
		resp, err := r.next.RoundTrip(req)
		if err == nil || try == readTries || !serverReset(err) {
			return resp, err
		}
		t := time.NewTimer(wait)
		select {
		case <-req.Context().Done():
			t.Stop()
			return nil, err
		case <-t.C:
		}
		wait *= 2
	}
}

// serverReset tells whether err is the server's reset of one HTTP/2 stream
// with INTERNAL_ERROR, which is what a handler's abort sends.
func serverReset(err error) bool {
	var se http2.StreamError
	return errors.As(err, &se) && se.Code == http2.ErrCodeInternal
}
