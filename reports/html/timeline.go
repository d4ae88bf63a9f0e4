package html

import (
	"fmt"
	"hash/fnv"
	"html/template"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/judge/verdict"
)

// The timeline's geometry, in SVG units: the label column, the plot, a
// row, the header (two lines per marker: the property, the request) and
// the axis below the rows.
const (
	labelW = 200
	plotW  = 1000
	rowH   = 22
	headH  = 34
	axisH  = 22
	// charW is about the width of a character of the 11px labels.
	charW = 6.2
)

// svg builds a timeline: rows of marks over [start, end], a window of
// the run [run, runEnd]. Marks outside the window are left out.
type svg struct {
	b                       strings.Builder
	run, runEnd, start, end time.Time
	rows                    int
}

func (s *svg) x(t time.Time) float64 {
	span := s.end.Sub(s.start)
	if span <= 0 {
		return labelW
	}
	f := float64(t.Sub(s.start)) / float64(span)
	return labelW + min(max(f, 0), 1)*plotW
}

// shows reports whether t falls in the window.
func (s *svg) shows(t time.Time) bool { return !t.Before(s.start) && !t.After(s.end) }

// row starts a labelled row and returns its top.
func (s *svg) row(label string) float64 {
	y := float64(headH + s.rows*rowH)
	s.rows++
	fmt.Fprintf(&s.b, `<text class="label" x="4" y="%.0f">%s</text>`, y+15, template.HTMLEscapeString(label))
	fmt.Fprintf(&s.b, `<line class="grid" x1="%d" x2="%d" y1="%.0f" y2="%.0f"/>`, labelW, labelW+plotW, y+rowH, y+rowH)
	return y
}

func (s *svg) tick(y float64, at time.Time, class, title string) {
	if !s.shows(at) {
		return
	}
	fmt.Fprintf(&s.b, `<rect class="%s" x="%.1f" y="%.0f" width="2" height="%d"><title>%s</title></rect>`,
		class, s.x(at), y+4, rowH-8, template.HTMLEscapeString(title))
}

// band draws [from, to] as a bar, cut to the window, named name (the
// title holds all of it).
func (s *svg) band(y float64, from, to time.Time, class, title, name string) {
	if to.Before(s.start) || from.After(s.end) {
		return
	}
	x1, x2 := s.x(from), s.x(to)
	w := max(x2-x1, 2)
	fmt.Fprintf(&s.b, `<rect class="%s" x="%.1f" y="%.0f" width="%.1f" height="%d"><title>%s</title></rect>`,
		class, x1, y+3, w, rowH-6, template.HTMLEscapeString(title))
	if name != "" {
		s.bandName(y, x1, x2, name, title)
	}
}

// bandName writes name in the band [x1, x2] as far as it fits; a band
// too narrow for a few characters has it beside it, after the band when
// there is room before the plot's end, else before it.
func (s *svg) bandName(y, x1, x2 float64, name, title string) {
	x, anchor := x1+3, "start"
	fit := fitted(name, x2-x1-6)
	if fit == "" {
		fit = name
		x = x2 + 3
		if x+float64(len([]rune(name)))*charW > labelW+plotW {
			x, anchor = x1-3, "end"
		}
	}
	fmt.Fprintf(&s.b, `<text class="band-name" x="%.1f" y="%.0f" text-anchor="%s">%s<title>%s</title></text>`,
		x, y+15, anchor, template.HTMLEscapeString(fit), template.HTMLEscapeString(title))
}

// fitted is name cut to width (with an ellipsis), "" when not even a few
// characters fit.
func fitted(name string, width float64) string {
	n := int(width / charW)
	r := []rune(name)
	switch {
	case len(r) <= n:
		return name
	case n < 4:
		return ""
	}
	return string(r[:n-1]) + "…"
}

func (s *svg) offset(t time.Time) string { return offset(s.run, t) }

// Timeline is one spec's evidence as an SVG timeline, with a marker where
// each of records broke, labelled with the request that broke it (see
// offending). It opens on the faults and the violations (see focus), with
// the whole run one click below; one timeline when that span is most of
// the run.
func Timeline(e *evidence.Evidence, records []verdict.Record) template.HTML {
	end := e.End
	if !end.After(e.Start) {
		end = e.Start.Add(time.Second)
	}
	marks := markers(e, records)
	whole := draw(e, marks, end, e.Start, end)
	from, to, ok := focus(e, marks, end)
	if !ok {
		return template.HTML(whole)
	}
	return template.HTML(fmt.Sprintf(`<div class="zoom"><p class="span">Showing %s to %s of the run's %s: the faults and where a property broke, with a margin.</p>%s`+
		`<details class="whole"><summary>Show the whole run (0s to %s)</summary>%s</details></div>`,
		offset(e.Start, from), offset(e.Start, to), end.Sub(e.Start).Round(time.Millisecond),
		draw(e, marks, end, from, to), end.Sub(e.Start).Round(time.Millisecond), whole))
}

// offset is t as an offset from the run's start, as records give "at".
func offset(run, t time.Time) string { return fmt.Sprintf("%+.3fs", t.Sub(run).Seconds()) }

// draw is the SVG of the evidence (of the run that ended at end) over
// [from, to]: faults, each history (and the Lease holder), each replica's
// requests and events, the markers and the axis.
func draw(e *evidence.Evidence, marks []marker, end, from, to time.Time) string {
	s := &svg{run: e.Start, runEnd: end, start: from, end: to}
	faultRow(s, e.Faults)
	owner := judge.HolderOwners(requestsByReplica(e))
	for _, name := range slices.Sorted(maps.Keys(e.Histories)) {
		historyRows(s, name, e.Histories[name], owner)
	}
	for _, id := range slices.Sorted(maps.Keys(e.Proxies)) {
		proxyRows(s, id, e.Proxies[id], marks)
	}
	height := headH + s.rows*rowH + 4
	var marked strings.Builder
	for _, m := range marks {
		m.draw(&marked, s, height)
	}
	return fmt.Sprintf(`<svg class="timeline" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" data-from="%s" data-to="%s">%s%s%s</svg>`,
		labelW+plotW+10, height+axisH, labelW+plotW+10, height+axisH, s.offset(from), s.offset(to),
		s.b.String(), marked.String(), axis(s, height))
}

func faultRow(s *svg, faults []chaos.Injection) {
	y := s.row("faults")
	for _, f := range faults {
		class := "fault"
		if f.Error != "" {
			class = "fault failed"
		}
		end := f.End
		if end.IsZero() { // still on when the evidence was taken
			end = s.runEnd
		}
		s.band(y, f.Start, end, class, fmt.Sprintf("%s on %s %v %s", f.Fault, f.Target, f.Detail, f.Error), "")
	}
}

// historyRows is a history's row of changes and, when it holds a Lease,
// the row of its holder.
func historyRows(s *svg, name string, recs []oracle.EventRecord, owner func(string) string) {
	y := s.row(name)
	for _, r := range recs {
		s.tick(y, r.At, "ev "+strings.ToLower(r.Type), fmt.Sprintf("%s %s %s", r.At.Format("15:04:05.000"), r.Type, r.Key))
	}
	if slices.ContainsFunc(recs, func(r oracle.EventRecord) bool { return kind(r) == "Lease" }) {
		leaseRow(s, recs, owner)
	}
}

func proxyRows(s *svg, id string, p evidence.ProxyLog, marks []marker) {
	y := s.row(id + " requests")
	for i := range p.Requests {
		r := &p.Requests[i]
		class := requestClass(r.Code, r.Fault)
		if slices.ContainsFunc(marks, func(m marker) bool { return m.request == r }) {
			class += " offending"
		}
		s.tick(y, r.Start, class, fmt.Sprintf("%s %s %s/%s -> %d %s", r.Start.Format("15:04:05.000"), r.Verb, r.Resource, r.Name, r.Code, r.Fault))
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

// requestsByReplica is each replica's requests, as the writer properties
// read them.
func requestsByReplica(e *evidence.Evidence) map[string][]proxy.Request {
	out := map[string][]proxy.Request{}
	for id, p := range e.Proxies {
		out[id] = p.Requests
	}
	return out
}

// leaseRow adds the row of the Lease holder over time, each term a band
// named by the replica that held it (owner: judge.HolderOwners), with
// the holder identity beside it when the replica chose its own.
func leaseRow(s *svg, recs []oracle.EventRecord, owner func(string) string) {
	y := s.row("Lease holder")
	holder, from := "", s.run
	flush := func(to time.Time) {
		if holder == "" {
			return
		}
		name := owner(holder)
		if name != holder {
			name += " (" + holder + ")"
		}
		title := fmt.Sprintf("held by %s from %s to %s", name, s.offset(from), s.offset(to))
		s.band(y, from, to, "holder h"+fmt.Sprint(hash(holder)%6), title, name)
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
	flush(s.runEnd)
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
