package evidence

import (
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"
	"time"
)

// Extent is what e holds, in brief: two snapshots of one spec's evidence
// with the same extent hold the same evidence, so a judge that gave a
// verdict on the first gives it on the second. It counts what only grows
// (each history's records, each proxy log's requests and events) and
// what changes in place (requests still in flight, each fault's end and
// detail, an incompleteness), and takes the facts and logs whole.
func (e *Evidence) Extent() string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(e.Histories)) {
		fmt.Fprintf(&b, "history %s %d %q\n", name, len(e.Histories[name]), e.Incomplete[name])
	}
	for _, id := range slices.Sorted(maps.Keys(e.Proxies)) {
		p := e.Proxies[id]
		open := 0
		for _, r := range p.Requests {
			if r.End.IsZero() {
				open++
			}
		}
		fmt.Fprintf(&b, "proxy %s %d %d %d %q\n", id, len(p.Requests), open, len(p.Events), p.Incomplete)
	}
	for _, f := range e.Faults {
		fmt.Fprintf(&b, "fault %q %q %s %s %v %q\n", f.Fault, f.Target, f.Start.Format(time.RFC3339Nano), f.End.Format(time.RFC3339Nano), f.Detail, f.Error)
	}
	for _, k := range slices.Sorted(maps.Keys(e.Facts)) {
		fmt.Fprintf(&b, "fact %s=%s\n", k, e.Facts[k])
	}
	for _, k := range slices.Sorted(maps.Keys(e.Logs)) {
		h := fnv.New64a()
		h.Write(e.Logs[k])
		fmt.Fprintf(&b, "log %s %x\n", k, h.Sum64())
	}
	fmt.Fprintf(&b, "records %d\n", len(e.Records))
	return b.String()
}
