package html

import (
	"fmt"
	"hash/fnv"
	"html/template"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/evidence"
	"github.com/steadystate-dev/steadystate/oracle"
	"github.com/steadystate-dev/steadystate/verdict"
)

// The timeline's geometry, in SVG units.
const (
	labelW = 200
	plotW  = 1000
	rowH   = 22
	headH  = 28
)

// svg builds a timeline: rows of marks over [start, end].
type svg struct {
	b          strings.Builder
	start, end time.Time
	rows       int
}

func (s *svg) x(t time.Time) float64 {
	span := s.end.Sub(s.start)
	if span <= 0 {
		return labelW
	}
	f := float64(t.Sub(s.start)) / float64(span)
	return labelW + min(max(f, 0), 1)*plotW
}

// row starts a labelled row and returns its top.
func (s *svg) row(label string) float64 {
	y := float64(headH + s.rows*rowH)
	s.rows++
	fmt.Fprintf(&s.b, `<text class="label" x="4" y="%.0f">%s</text>`, y+15, template.HTMLEscapeString(label))
	fmt.Fprintf(&s.b, `<line class="grid" x1="%d" x2="%d" y1="%.0f" y2="%.0f"/>`, labelW, labelW+plotW, y+rowH, y+rowH)
	return y
}

func (s *svg) tick(y float64, at time.Time, class, title string) {
	fmt.Fprintf(&s.b, `<rect class="%s" x="%.1f" y="%.0f" width="2" height="%d"><title>%s</title></rect>`,
		class, s.x(at), y+4, rowH-8, template.HTMLEscapeString(title))
}

func (s *svg) band(y float64, from, to time.Time, class, title string) {
	x1, x2 := s.x(from), s.x(to)
	fmt.Fprintf(&s.b, `<rect class="%s" x="%.1f" y="%.0f" width="%.1f" height="%d"><title>%s</title></rect>`,
		class, x1, y+3, max(x2-x1, 2), rowH-6, template.HTMLEscapeString(title))
}

// Timeline is the SVG timeline of one spec's evidence, with a marker
// where each of records broke.
func Timeline(e *evidence.Evidence, records []verdict.Record) template.HTML {
	s := &svg{start: e.Start, end: e.End}
	if s.end.Before(s.start) || s.end.Equal(s.start) {
		s.end = s.start.Add(time.Second)
	}
	y := s.row("faults")
	for _, f := range e.Faults {
		class := "fault"
		if f.Error != "" {
			class = "fault failed"
		}
		s.band(y, f.Start, f.End, class, fmt.Sprintf("%s on %s %v %s", f.Fault, f.Target, f.Detail, f.Error))
	}
	for _, name := range slices.Sorted(maps.Keys(e.Histories)) {
		recs := e.Histories[name]
		y := s.row(name)
		holders := leaseRow(s, recs)
		for _, r := range recs {
			s.tick(y, r.At, "ev "+strings.ToLower(r.Type), fmt.Sprintf("%s %s %s", r.At.Format("15:04:05.000"), r.Type, r.Key))
		}
		if holders != nil {
			holders()
		}
	}
	for _, id := range slices.Sorted(maps.Keys(e.Proxies)) {
		p := e.Proxies[id]
		y := s.row(id + " requests")
		for _, r := range p.Requests {
			s.tick(y, r.Start, requestClass(r.Code, r.Fault), fmt.Sprintf("%s %s %s/%s -> %d %s", r.Start.Format("15:04:05.000"), r.Verb, r.Resource, r.Name, r.Code, r.Fault))
		}
		y = s.row(id + " events")
		for _, ev := range p.Events {
			class := "ev delivered"
			if !ev.Delivered {
				class = "ev dropped"
			}
			s.tick(y, ev.At, class, fmt.Sprintf("%s %s %s %s %s", ev.At.Format("15:04:05.000"), ev.Type, ev.Kind, ev.Name, ev.Fault))
		}
	}
	height := headH + s.rows*rowH + 8
	var marks strings.Builder
	for _, r := range records {
		if r.Outcome != verdict.Broken || r.At == "" {
			continue
		}
		off, err := time.ParseDuration(strings.TrimPrefix(r.At, "+"))
		if err != nil {
			continue
		}
		x := s.x(e.Start.Add(off))
		// The label reads leftwards from a marker near the right edge.
		tx, anchor := x+3, "start"
		if x > labelW+plotW/2 {
			tx, anchor = x-3, "end"
		}
		fmt.Fprintf(&marks, `<g class="broken-marker" data-property="%s"><line x1="%.1f" x2="%.1f" y1="14" y2="%d"/><text x="%.1f" y="11" text-anchor="%s">%s broke at %s</text><title>%s</title></g>`,
			template.HTMLEscapeString(r.ID), x, x, height, tx, anchor, template.HTMLEscapeString(r.ID), r.At, template.HTMLEscapeString(r.Reason))
	}
	axis := fmt.Sprintf(`<text class="axis" x="%d" y="%d">0s</text><text class="axis" x="%d" y="%d" text-anchor="end">%s</text>`,
		labelW, headH-4, labelW+plotW, headH-4, s.end.Sub(s.start).Round(time.Millisecond))
	return template.HTML(fmt.Sprintf(`<svg class="timeline" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d">%s%s%s</svg>`,
		labelW+plotW+10, height, labelW+plotW+10, height, axis, s.b.String(), marks.String()))
}

// leaseRow adds a row with the Lease holder over time when the history
// holds a Lease, and returns nil otherwise.
func leaseRow(s *svg, recs []oracle.EventRecord) func() {
	if !slices.ContainsFunc(recs, func(r oracle.EventRecord) bool { return kind(r) == "Lease" }) {
		return nil
	}
	return func() {
		y := s.row("Lease holder")
		holder, from := "", s.start
		flush := func(to time.Time) {
			if holder != "" {
				s.band(y, from, to, "holder h"+fmt.Sprint(hash(holder)%6), "held by "+holder)
			}
		}
		for _, r := range recs {
			h := ""
			if spec, ok := r.Object["spec"].(map[string]any); ok {
				h, _ = spec["holderIdentity"].(string)
			}
			if r.Type == "DELETED" {
				h = ""
			}
			if h != holder {
				flush(r.At)
				holder, from = h, r.At
			}
		}
		flush(s.end)
	}
}

func kind(r oracle.EventRecord) string {
	k, _ := r.Object["kind"].(string)
	return k
}

func hash(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

func requestClass(code int, fault string) string {
	switch {
	case fault != "":
		return "req faulted"
	case code >= 500 || code == 0:
		return "req c5"
	case code >= 400:
		return "req c4"
	}
	return "req ok"
}
