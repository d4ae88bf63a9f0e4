package evidence

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// HistoryFileName is the merged history a person reads.
const HistoryFileName = "history.txt"

// WriteHistory writes the merged history: every recorded history, every
// replica's requests and events and every fault, one a line in time
// order, as offsets from the spec's start.
func (e *Evidence) WriteHistory(w io.Writer) error {
	var all [][]oracle.Entry
	for _, name := range slices.Sorted(maps.Keys(e.Histories)) {
		all = append(all, oracle.FromRecords(e.Histories[name]).Entries(name))
	}
	for _, id := range slices.Sorted(maps.Keys(e.Proxies)) {
		all = append(all, proxyEntries(id, e.Proxies[id]))
	}
	all = append(all, faultEntries(e.Faults))
	return oracle.WriteMerged(w, e.Start, oracle.Merge(all...))
}

func faultEntries(faults []chaos.Injection) []oracle.Entry {
	var out []oracle.Entry
	for _, inj := range faults {
		what := inj.Fault
		if inj.Target != "" {
			what += " on " + inj.Target
		}
		out = append(out, oracle.Entry{At: inj.Start, Source: "fault", What: "inject " + what + details(inj.Detail)})
		if !inj.End.Equal(inj.Start) {
			out = append(out, oracle.Entry{At: inj.End, Source: "fault", What: "recover " + what})
		}
	}
	return out
}

func proxyEntries(identity string, p ProxyLog) []oracle.Entry {
	var out []oracle.Entry
	for _, r := range p.Requests {
		out = append(out, requestEntries(identity, r)...)
	}
	for _, e := range p.Events {
		what := fmt.Sprintf("event %s %s rv=%s", e.Type, object(strings.ToLower(e.Kind), e.Namespace, e.Name), e.ResourceVersion)
		if e.Type == "ERROR" {
			what = fmt.Sprintf("event ERROR %d %s", e.Code, e.Reason)
		}
		switch {
		case !e.Delivered:
			what += " dropped"
		case e.Fault != "":
			what += " [" + e.Fault + "]"
		}
		out = append(out, oracle.Entry{At: e.At, Source: identity, What: what})
	}
	return out
}

func requestEntries(identity string, r proxy.Request) []oracle.Entry {
	what := r.Verb + " " + object(r.Resource, r.Namespace, r.Name)
	if r.Name == "" && r.Namespace != "" {
		what = r.Verb + " " + r.Resource + " in " + r.Namespace
	}
	if r.Path != "" {
		what = r.Verb + " " + r.Path
	}
	if r.Fault != "" {
		what += " [" + r.Fault + "]"
	}
	if r.Verb != "watch" {
		return []oracle.Entry{{At: r.Start, Source: identity, What: fmt.Sprintf("%s -> %d", what, r.Code)}}
	}
	out := []oracle.Entry{{At: r.Start, Source: identity, What: what + " opened"}}
	if !r.End.IsZero() {
		out = append(out, oracle.Entry{At: r.End, Source: identity, What: fmt.Sprintf("%s closed (%d)", what, r.Code)})
	}
	return out
}

func object(resource, ns, name string) string {
	return strings.Trim(resource+"/"+strings.Trim(ns+"/"+name, "/"), "/")
}

func details(d map[string]string) string {
	if len(d) == 0 {
		return ""
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(d)) {
		parts = append(parts, k+"="+d[k])
	}
	return " (" + strings.Join(parts, " ") + ")"
}
