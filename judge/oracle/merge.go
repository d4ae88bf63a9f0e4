package oracle

import (
	"fmt"
	"io"
	"slices"
	"time"
)

// Entry is one line of a merged history: when, which source saw it (a
// recorded resource, a replica's proxy, the fault timeline) and what.
type Entry struct {
	At     time.Time
	Source string
	What   string
}

// Merge orders the entries of every source by time. Every source stamps
// with time.Now in this process, so the clock readings share one monotonic
// base and a proxy request, a watch event and a fault injection compare
// exactly; ties keep their source order.
func Merge(sources ...[]Entry) []Entry {
	var all []Entry
	for _, s := range sources {
		all = append(all, s...)
	}
	slices.SortStableFunc(all, func(a, b Entry) int { return a.At.Compare(b.At) })
	return all
}

// WriteMerged writes entries one a line, as offsets from base:
//
//	+1.204s  pods            ADDED ns/web-x7k2p rv=412
//	+1.210s  workload-0      create pods 201
//	+1.500s  fault           stall pods: start
func WriteMerged(w io.Writer, base time.Time, entries []Entry) error {
	width := 0
	for _, e := range entries {
		width = max(width, len(e.Source))
	}
	for _, e := range entries {
		if _, err := fmt.Fprintf(w, "%+9.3fs  %-*s  %s\n", e.At.Sub(base).Seconds(), width, e.Source, e.What); err != nil {
			return err
		}
	}
	return nil
}

// Entries is the history as merged-history lines, named source.
func (h *History) Entries(source string) []Entry {
	var out []Entry
	for _, e := range h.Events() {
		what := fmt.Sprintf("%s %s rv=%s", e.Type, e.Key, e.Object.GetResourceVersion())
		if e.Object.GetDeletionTimestamp() != nil {
			what += " (deleting)"
		}
		out = append(out, Entry{At: e.At, Source: source, What: what})
	}
	return out
}
