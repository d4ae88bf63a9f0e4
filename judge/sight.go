package judge

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// FirstSight is when the subject, through any of its replicas' proxies,
// first saw the object key (namespace/name; /name when cluster-scoped) of
// the given kind in its state of resourceVersion rv or later: a delivered
// watch event naming it with a resourceVersion of at least rv (at or
// after since, when either is not a number), or the answer to a get of it
// or a list of its resource begun at or after since. The resource is
// learned from the watches that delivered events of that kind. Zero when
// the subject did not see it, and with no proxy log or no kind: nothing is
// known of what the subject saw.
func FirstSight(proxies []evidence.ProxyLog, kind, key string, since time.Time, rv string) time.Time {
	ns, name, _ := strings.Cut(key, "/")
	if kind == "" || name == "" {
		return time.Time{}
	}
	var first time.Time
	for _, p := range proxies {
		ofKind := map[uint64]bool{}
		for _, e := range p.Events {
			if e.Kind != kind {
				continue
			}
			ofKind[e.WatchID] = true
			if !e.Delivered || e.Namespace != ns || e.Name != name {
				continue
			}
			if atLeast, known := notOlder(e.ResourceVersion, rv); (known && atLeast) || (!known && !e.At.Before(since)) {
				first = earlier(first, e.At)
			}
		}
		resources := map[[2]string]bool{}
		for _, r := range p.Requests {
			if r.Verb == "watch" && ofKind[r.ID] {
				resources[[2]string{r.Group, r.Resource}] = true
			}
		}
		for _, r := range p.Requests {
			if r.Code != 200 || r.End.IsZero() || r.Start.Before(since) || r.Subresource != "" || !resources[[2]string{r.Group, r.Resource}] {
				continue
			}
			if (r.Verb == "list" && (r.Namespace == "" || r.Namespace == ns)) || (r.Verb == "get" && r.Namespace == ns && r.Name == name) {
				first = earlier(first, r.End)
			}
		}
	}
	return first
}

// notOlder reports whether resourceVersion a is at least b, and whether
// that is known: both numbers, as etcd's are.
func notOlder(a, b string) (atLeast, known bool) {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	return x >= y, errA == nil && errB == nil
}

// earlier is the earlier of two moments, zero meaning none yet.
func earlier(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

// ReflectorBackoff is the most a first sight moves the start of what a
// subject owes for a delete (seenFrom): one wait of client-go's
// reflector between failed lists and watches. Its default backoff
// (k8s.io/client-go tools/cache/reflector.go, v0.36) starts at
// 800 ms, doubles, is capped at 30 s and jittered by a factor of 1.0, so
// a single wait is below 60 s ("backoff will stop at [30,60) sec
// interval"). A sight later than that after the recovery is not a client
// waiting out one backoff after the fault, and excuses nothing.
const ReflectorBackoff = 60 * time.Second

// seenFrom is when a subject owes what it owes for the deletion of the
// object key, deleted at deleted: owed (the later of the delete and the
// recovery), or, when later by at most ReflectorBackoff, the moment the
// subject first saw the object deleting (FirstSight from the delete, of
// its first deleting state). A fault can leave a client blind after its
// recovery: client-go's reflector, after the failed lists and watches a
// fault causes, waits out an exponential backoff (up to 60 s with its
// jitter) before it lists again, and the subject cannot act on a delete
// it has not seen. When it never saw the delete, or first saw it more
// than one backoff after owed, owed stays as it is: a subject that never
// looks again, or looks only much later, is judged, not excused.
func seenFrom(e *evidence.Evidence, h *oracle.History, key string, deleted, owed time.Time) time.Time {
	kind, rv := "", ""
	for _, ev := range h.Events() {
		if ev.Key != key || ev.Object == nil {
			continue
		}
		if kind == "" {
			kind = ev.Object.GetKind()
		}
		if ev.Object.GetDeletionTimestamp() != nil {
			rv = ev.Object.GetResourceVersion()
			break
		}
	}
	if seen := FirstSight(proxyLogs(e), kind, key, deleted, rv); seen.After(owed) && !seen.After(owed.Add(ReflectorBackoff)) {
		return seen
	}
	return owed
}

// proxyLogs are the evidence's proxy logs, in the order of their replicas'
// identities.
func proxyLogs(e *evidence.Evidence) []evidence.ProxyLog {
	var logs []evidence.ProxyLog
	for _, id := range slices.Sorted(maps.Keys(e.Proxies)) {
		logs = append(logs, e.Proxies[id])
	}
	return logs
}
