package testenv

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL reads best unqualified.

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/suites/oracle"
)

// merged is the current spec's merged history: every recorded resource,
// every replica's proxy and the fault timeline, written as history.txt
// with a failing spec's artifacts.
type merged struct {
	spec    time.Time // the spec's start: tells specs apart
	sources []func() []oracle.Entry
	// histories are the spec's recorded histories, judged complete or
	// not by Verify.
	histories []*oracle.History
}

var current *merged

// addToHistory adds a source to the current spec's merged history.
func addToHistory(source func() []oracle.Entry) {
	m := specHistory()
	m.sources = append(m.sources, source)
}

// specHistory is the current spec's merged history, made at its first use
// in the spec.
func specHistory() *merged {
	started := CurrentSpecReport().StartTime
	if current == nil || !current.spec.Equal(started) {
		m := &merged{spec: started}
		current = m
		// Registered with the first source, so it runs after the cleanups
		// registered later (they stop recorders and proxies, whose
		// histories stay readable).
		DeferCleanup(func() {
			if !CurrentSpecReport().Failed() {
				return
			}
			var all [][]oracle.Entry
			for _, s := range m.sources {
				all = append(all, s())
			}
			var b bytes.Buffer
			oracle.WriteMerged(&b, m.spec, oracle.Merge(all...))
			write("history.txt", b.Bytes())
		})
	}
	return current
}

// Timeline starts the spec's fault timeline: kept as fault-timeline.json
// and merged into history.txt if the spec fails.
func Timeline() *chaos.Timeline {
	tl := chaos.NewTimeline()
	KeepOnFailure("fault-timeline", func() any { return tl.Injections() })
	addToHistory(func() []oracle.Entry { return faultEntries(tl) })
	return tl
}

// KeepProxy keeps a replica's log (read by log) and its proxy's requests
// and events with a failing spec's artifacts, and merges them into
// history.txt. Call it after registering the replica's stop: cleanups run
// last-in, first-out, so this runs first, and the proxy's history survives
// Close anyway.
func KeepProxy(identity string, log func() ([]byte, error), p proxy.Controller) {
	keepOnFailure(identity+".log", log)
	KeepOnFailure(identity+"-proxy-requests", func() any { return p.Requests() })
	KeepOnFailure(identity+"-proxy-events", func() any { return p.Events() })
	addToHistory(func() []oracle.Entry { return proxyEntries(identity, p) })
}

func faultEntries(tl *chaos.Timeline) []oracle.Entry {
	var out []oracle.Entry
	for _, inj := range tl.Injections() {
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

func proxyEntries(identity string, p proxy.Controller) []oracle.Entry {
	var out []oracle.Entry
	for _, r := range p.Requests() {
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
		if r.Verb == "watch" {
			out = append(out, oracle.Entry{At: r.Start, Source: identity, What: what + " opened"})
			if !r.End.IsZero() {
				out = append(out, oracle.Entry{At: r.End, Source: identity, What: fmt.Sprintf("%s closed (%d)", what, r.Code)})
			}
			continue
		}
		out = append(out, oracle.Entry{At: r.Start, Source: identity, What: fmt.Sprintf("%s -> %d", what, r.Code)})
	}
	for _, e := range p.Events() {
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
