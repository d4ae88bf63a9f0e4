package html

import (
	"fmt"
	"html/template"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// marker is where a property broke and, when a request broke it, that
// request.
type marker struct {
	record  verdict.Record
	at      time.Time
	request *proxy.Request // in the evidence's proxy log; nil when none
}

// markers are the broken records of the evidence that say where they
// broke, each with its offending request.
func markers(e *evidence.Evidence, records []verdict.Record) []marker {
	var out []marker
	for _, r := range records {
		if r.Outcome != verdict.Broken || r.At == "" {
			continue
		}
		off, err := time.ParseDuration(strings.TrimPrefix(r.At, "+"))
		if err != nil {
			continue
		}
		at := e.Start.Add(off)
		out = append(out, marker{record: r, at: at, request: offending(e, at, r.Reason)})
	}
	return out
}

// offending is the write a replica made at at, the moment a property
// broke, when one did: the request the writer properties break on (they
// break at its start, which the record's "at" gives to the millisecond).
// Of several, the one by a replica the reason names, then the nearest.
// Nil when no write was made then: the property broke on something else
// (a deadline, a recorded change).
func offending(e *evidence.Evidence, at time.Time, reason string) *proxy.Request {
	var best *proxy.Request
	better := func(r *proxy.Request) bool {
		named, bestNamed := strings.Contains(reason, r.Replica), strings.Contains(reason, best.Replica)
		return named && !bestNamed || named == bestNamed && r.Start.Sub(at).Abs() < best.Start.Sub(at).Abs()
	}
	for _, id := range slices.Sorted(maps.Keys(e.Proxies)) {
		reqs := e.Proxies[id].Requests
		for i := range reqs {
			r := &reqs[i]
			if !r.IsWrite() || r.Start.Sub(at).Abs() > time.Millisecond/2 {
				continue
			}
			if best == nil || better(r) {
				best = r
			}
		}
	}
	return best
}

// requestLabel names a request: "leader-1 create configmaps (new)",
// "leader-0 update configmaps ns/heartbeat".
func requestLabel(r *proxy.Request) string {
	what := r.GroupResource()
	switch {
	case r.Name == "":
		what += " (new)"
	case r.Namespace != "":
		what += " " + r.Namespace + "/" + r.Name
	default:
		what += " " + r.Name
	}
	if r.Subresource != "" {
		what += "/" + r.Subresource
	}
	return fmt.Sprintf("%s %s %s", r.Replica, r.Verb, what)
}

// draw writes the marker, a line down the rows, the property and when it
// broke, and below it the offending request, reading leftwards from a
// marker in the right half.
func (m marker) draw(w *strings.Builder, s *svg, height int) {
	if !s.shows(m.at) {
		return
	}
	x := s.x(m.at)
	tx, anchor := x+3, "start"
	if x > labelW+plotW/2 {
		tx, anchor = x-3, "end"
	}
	label, request := "", ""
	if m.request != nil {
		label = requestLabel(m.request)
		request = fmt.Sprintf(`<text class="request" x="%.1f" y="25" text-anchor="%s">%s</text>`, tx, anchor, template.HTMLEscapeString(label))
	}
	fmt.Fprintf(w, `<g class="broken-marker" data-property="%s" data-request="%s"><line x1="%.1f" x2="%.1f" y1="28" y2="%d"/>`+
		`<text x="%.1f" y="11" text-anchor="%s">%s broke at %s</text>%s<title>%s</title></g>`,
		template.HTMLEscapeString(m.record.ID), template.HTMLEscapeString(label), x, x, height,
		tx, anchor, template.HTMLEscapeString(m.record.ID), m.record.At, request, template.HTMLEscapeString(m.record.Reason))
}
