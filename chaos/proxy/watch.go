package proxy

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// serveWatch forwards a watch and passes its events through the rules one
// by one.
func (p *Proxy) serveWatch(w *statusWriter, r *http.Request, info RequestInfo, rec *Request) {
	expireID := ""
	if info.Resumable() {
		if _, id, ok := p.rules.take(Expire, info, nil); ok {
			expireID = id
		}
	}
	out := r.Clone(r.Context())
	out.URL.Scheme, out.URL.Host, out.Host, out.RequestURI = p.upstream.Scheme, p.upstream.Host, p.upstream.Host, ""
	out.Header.Del("Authorization")
	resp, err := p.rt.RoundTrip(out)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			writeStatus(w, http.StatusBadGateway, "fault proxy: API server unreachable: "+err.Error())
		}
		return
	}
	defer resp.Body.Close()
	copyHeader(w.Header(), resp.Header)
	contentType := resp.Header.Get("Content-Type")

	if expireID != "" && resp.StatusCode == http.StatusOK {
		// The real watch was opened only to learn its media type.
		resp.Body.Close()
		rec.Fault = expireID
		status := expiredStatus(info.ResourceVersion, p.rvs.max(info.GroupResource()))
		ev, err := errorEvent(contentType, status)
		if err != nil {
			writeStatus(w, http.StatusInternalServerError, "fault proxy: encode 410: "+err.Error())
			return
		}
		w.WriteHeader(http.StatusOK)
		_, werr := w.Write(ev)
		w.Flush()
		// Delivered only if it reached the client's connection.
		p.event(Event{Replica: p.opts.Replica, WatchID: rec.ID, Delivered: werr == nil, Fault: expireID, At: time.Now(),
			EventMeta: EventMeta{Type: "ERROR", Kind: "Status", Code: status.Code, Reason: string(status.Reason), Message: status.Message}})
		return
	}
	if resp.StatusCode == http.StatusOK && !readable(contentType) {
		// Passed through, such a watch could be neither faulted nor
		// recorded event by event: a hole in the evidence nobody would see.
		rec.Fault = RefusedEncoding
		w.Header().Del("Content-Type")
		writeStatus(w, http.StatusNotAcceptable, fmt.Sprintf("fault proxy: a watch answered in %s cannot be faulted or recorded event by event; "+
			"let the controller accept application/json or application/vnd.kubernetes.protobuf (for client-go, leave the CBOR feature gates off)", mediaType(contentType)))
		rec.Code = http.StatusNotAcceptable
		return
	}
	w.WriteHeader(resp.StatusCode)
	if resp.StatusCode != http.StatusOK {
		copyBody(w, resp)
		return
	}
	w.Flush()
	p.pump(r.Context(), w, resp, info, rec)
}

func copyBody(w http.ResponseWriter, resp *http.Response) {
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return // the client went away
			}
		}
		if err != nil {
			return
		}
	}
}

func expiredStatus(requested string, newest uint64) *metav1.Status {
	oldest := newest
	if rv, err := strconv.ParseUint(requested, 10, 64); err == nil && oldest <= rv {
		oldest = rv + 1
	}
	return &metav1.Status{
		Status:  metav1.StatusFailure,
		Message: fmt.Sprintf("too old resource version: %s (%d)", requested, oldest),
		Reason:  metav1.StatusReasonExpired,
		Code:    http.StatusGone,
	}
}

type frameOrErr struct {
	f   frame
	err error
}

// pump delivers a watch stream event by event, applying the rules.
func (p *Proxy) pump(ctx context.Context, w *statusWriter, resp *http.Response, info RequestInfo, rec *Request) {
	aw := p.watches.add(rec.ID, info)
	defer p.watches.remove(rec.ID)
	// A refusing partition or a seal cuts the open watches after it takes
	// effect; a watch that passed the check before it and registers only
	// now must not slip through, so it looks again.
	if _, blackhole, ok := p.rules.partition(); (ok && !blackhole) || p.sealed.Load() {
		aw.once.Do(func() { aw.reset = true; close(aw.cutCh) })
	}
	done := make(chan struct{})
	defer close(done)
	frames := make(chan frameOrErr, 64)
	go func() {
		reader := newFrameReader(resp.Body, resp.Header.Get("Content-Type"))
		initial := info.SendInitialEvents
		for {
			f, err := reader.next()
			f.initial = initial && err == nil
			initial = initial && !f.endsInitialEvents()
			select {
			case frames <- frameOrErr{f, err}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()

	var held []frame
	// holder is the rule that holds the stream: the held events, once
	// delivered, are recorded as its.
	holder := ""
	defer func() { p.held.Add(-int64(len(held))) }()
	record := func(f frame, delivered bool, fault string) {
		p.event(Event{Replica: p.opts.Replica, WatchID: rec.ID, EventMeta: f.meta, Delivered: delivered, Fault: fault, At: time.Now()})
	}
	// cut ends the stream: cleanly, as when the API server closes a watch
	// (the client resumes from its resource version), or with a reset, as
	// on a network failure.
	cut := func() {
		for _, f := range held {
			record(f, false, "cut")
		}
		resp.Body.Close()
		if aw.reset {
			rec.Fault = "reset"
			panic(http.ErrAbortHandler)
		}
		rec.Fault = "cut"
	}
	// deliver writes one frame, or drops or delays it; false ends the watch.
	deliver := func(f frame, v eventVerdict) bool {
		if v.drop {
			record(f, false, v.rule)
			return true
		}
		if d := v.delay.Duration; d > 0 {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
			case <-aw.cutCh:
				record(f, false, "cut")
				cut()
				return false
			case <-ctx.Done():
				return false
			}
		}
		if _, err := w.Write(f.raw); err != nil {
			return false
		}
		w.Flush()
		record(f, true, v.rule)
		return true
	}
	changes := p.rules.watchChanges()
	for {
		// A cut wins over everything else that is ready: events held by
		// a stall that is lifted at the same moment must not slip out.
		if aw.isCut() {
			cut()
			return
		}
		select {
		case <-aw.cutCh:
			cut()
			return
		case <-ctx.Done():
			return
		case <-changes:
			changes = p.rules.watchChanges()
			for len(held) > 0 && !aw.isCut() {
				v := p.rules.forEvent(info, held[0])
				if v.hold {
					holder = v.rule
					break
				}
				if v.rule == "" {
					v.rule = holder
				}
				f := held[0]
				held = held[1:]
				p.held.Add(-1)
				if !deliver(f, v) {
					return
				}
			}
		case it := <-frames:
			if it.err != nil {
				return // the API server ended the watch; so do we
			}
			p.rvs.observe(info.GroupResource(), it.f.meta.ResourceVersion)
			v := p.rules.forEvent(info, it.f)
			if v.hold && len(held) == 0 {
				holder = v.rule
			}
			if v.hold || len(held) > 0 {
				held = append(held, it.f) // keep order behind held events
				p.held.Add(1)
				continue
			}
			if !deliver(it.f, v) {
				return
			}
		}
	}
}
