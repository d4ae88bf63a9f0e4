package judge

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/evidence"
	"github.com/steadystate-dev/steadystate/suites/oracle"
)

// unseenSlack is how much earlier than its recorded creation a subject
// may have begun to expect a pod: it records the expectation just before
// its create request, and the recorder sees the pod a little after the
// API server stored it.
const unseenSlack = 250 * time.Millisecond

// Sighting is when a pod was created and when the subject first saw it;
// Seen is zero when it never did.
type Sighting struct {
	Created, Seen time.Time
}

// unseenAt reports whether the pod was still unseen by the subject at t.
func (s Sighting) unseenAt(t time.Time) bool { return s.Seen.IsZero() || s.Seen.After(t) }

// UnseenCreates tells, for each pod of the pods history (by key), when it
// was created (its first recorded ADDED) and when the subject first saw
// it through its replicas' proxies: a delivered watch event naming it
// with the resourceVersion that created it or a newer one (when either is
// not a number: delivered at or after its creation), or the answer to a
// list of pods begun after its creation, whichever came first. The
// subject's watch may deliver a pod before the recorder's watch does: by
// the recorder's clock it saw the pod before it was created. A list
// begun after the pod was gone did not show it; taking it as seen there
// only makes the pod count as seen earlier. With no proxy log nothing is
// known of what the subject saw: no sightings at all.
func UnseenCreates(pods []oracle.Event, proxies []evidence.ProxyLog) map[string]Sighting {
	if len(proxies) == 0 {
		return nil
	}
	out := map[string]Sighting{}
	created := map[string]string{} // by key: the resourceVersion that made the pod
	for _, e := range pods {
		if _, ok := out[e.Key]; !ok && e.Type == "ADDED" {
			out[e.Key] = Sighting{Created: e.At}
			if e.Object != nil {
				created[e.Key] = e.Object.GetResourceVersion()
			}
		}
	}
	seen := func(key string, at time.Time) {
		s, ok := out[key]
		if ok && (s.Seen.IsZero() || at.Before(s.Seen)) {
			s.Seen = at
			out[key] = s
		}
	}
	for _, p := range proxies {
		podWatch := map[uint64]bool{}
		for _, r := range p.Requests {
			switch {
			case r.Resource != "pods" || r.Group != "":
			case r.Verb == "watch":
				podWatch[r.ID] = true
			case r.Verb == "list" && r.Code == 200 && !r.End.IsZero():
				for key, s := range out {
					if r.Start.After(s.Created) && (r.Namespace == "" || strings.HasPrefix(key, r.Namespace+"/")) {
						seen(key, r.End)
					}
				}
			}
		}
		for _, e := range p.Events {
			if !e.Delivered || !podWatch[e.WatchID] || e.Name == "" {
				continue
			}
			key := e.Namespace + "/" + e.Name
			s, ok := out[key]
			if !ok {
				continue
			}
			// By resourceVersion where both are numbers: the subject's
			// watch may deliver the pod before the recorder's does.
			if atLeast, known := notOlder(e.ResourceVersion, created[key]); (known && atLeast) || (!known && !e.At.Before(s.Created)) {
				seen(key, e.At)
			}
		}
	}
	return out
}

// ExcusedCreates are the pods, by key, created while another pod had
// stayed unseen by the subject for longer than its expectation timeout,
// each with the pod it had not seen. Once an expectation expires a
// controller acts on its cache as it is: the expectations design assumes
// a create is seen within the timeout, and where the run kept it from the
// subject longer, a pod made from the stale cache is the premise failing,
// not the controller. A subject with no expectations (timeout 0) is
// excused nothing.
func ExcusedCreates(sightings map[string]Sighting, timeout time.Duration) map[string]string {
	out := map[string]string{}
	if timeout <= 0 {
		return out
	}
	keys := slices.Sorted(maps.Keys(sightings))
	for _, q := range keys {
		created := sightings[q].Created
		for _, p := range keys {
			s := sightings[p]
			if p != q && s.Created.Before(created) && created.Sub(s.Created) >= timeout-unseenSlack && s.unseenAt(created) {
				out[q] = fmt.Sprintf("created %s after %s, which the subject had not seen yet (expectation timeout %s)",
					created.Sub(s.Created).Round(time.Millisecond), p, timeout)
				break
			}
		}
	}
	return out
}
