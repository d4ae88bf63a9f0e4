package judge

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// unseenSlack is how much earlier than its recorded creation a subject
// may have begun to expect a pod: it records the expectation just before
// its create request, and the recorder sees the pod a little after the
// API server stored it.
const unseenSlack = 250 * time.Millisecond

// Sighting is when a pod was created and when the subject first saw it;
// Seen is zero when it never did. Made says the subject's own create
// request made it (ByTheSubject).
type Sighting struct {
	Created, Seen time.Time
	Made          bool
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
// known of what the subject saw: no sightings at all. Each sighting says
// whether the subject made the pod (ByTheSubject).
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
	for key := range ByTheSubject(out, proxies) {
		s := out[key]
		s.Made = true
		out[key] = s
	}
	return out
}

// ByTheSubject are the pods of sightings (by key) that a create of pods
// by one of the subject's replicas made, from their proxy logs: a create
// in the pod's namespace the API server accepted, begun before the pod
// was recorded and answered at most unseenSlack before (the recorder sees
// a pod a little after the API server stored it, and so before or after
// the answer). A create answers for one pod, the first recorded after it
// began. The proxy does not record the name a create's answer gave (a
// controller's pods have generated names), hence the matching by time.
func ByTheSubject(sightings map[string]Sighting, proxies []evidence.ProxyLog) map[string]bool {
	var creates []proxy.Request
	for _, p := range proxies {
		for _, r := range p.Requests {
			if r.Verb == "create" && r.Resource == "pods" && r.Group == "" && r.Subresource == "" && (r.Code == 200 || r.Code == 201) && !r.End.IsZero() {
				creates = append(creates, r)
			}
		}
	}
	slices.SortFunc(creates, func(a, b proxy.Request) int { return a.Start.Compare(b.Start) })
	keys := slices.SortedFunc(maps.Keys(sightings), func(a, b string) int { return sightings[a].Created.Compare(sightings[b].Created) })
	out := map[string]bool{}
	used := make([]bool, len(creates))
	for _, key := range keys {
		at := sightings[key].Created
		ns, _, _ := strings.Cut(key, "/")
		for i, r := range creates {
			if !used[i] && r.Namespace == ns && !r.Start.After(at) && !at.Before(r.End.Add(-unseenSlack)) && !at.After(r.End.Add(unseenSlack)) {
				used[i], out[key] = true, true
				break
			}
		}
	}
	return out
}

// Excusal is why no-overshoot excuses a pod beyond the limit, and until
// when.
type Excusal struct {
	Reason string
	// Until is the excusal's cap: one expectation timeout after the
	// subject first saw the pod it had not seen (by then it sees the
	// excess and has its own expectation timeout to act on it), or, when
	// it never saw that pod, one timeout after that pod's expectation
	// expired. A pod made after Until is not excused, and an excused pod
	// beyond the limit after Until is an overshoot.
	Until time.Time
}

// Excused are the excusals of no-overshoot by pod key, and the end of
// the evidence (an excusal that ends before it is checked there).
type Excused struct {
	Pods map[string]Excusal
	End  time.Time
}

// ExcusedCreates are the pods, by key, the subject created (Made) while
// another pod had stayed unseen by it for longer than its expectation
// timeout, each with the pod it had not seen and the excusal's cap
// (Excusal.Until). Once an expectation expires a controller acts on its
// cache as it is: the expectations design assumes a create is seen within
// the timeout, and where the run kept it from the subject longer, a pod
// made from the stale cache is the premise failing, not the controller.
// A pod someone else made is no stale-cache create of the subject's. A
// subject with no expectations (timeout 0) is excused nothing.
func ExcusedCreates(sightings map[string]Sighting, timeout time.Duration, end time.Time) *Excused {
	out := &Excused{Pods: map[string]Excusal{}, End: end}
	if timeout <= 0 {
		return out
	}
	keys := slices.Sorted(maps.Keys(sightings))
	for _, q := range keys {
		created := sightings[q].Created
		if !sightings[q].Made {
			continue
		}
		for _, p := range keys {
			s := sightings[p]
			until := s.Seen
			if until.IsZero() {
				until = s.Created.Add(timeout) // its expectation expired
			}
			until = until.Add(timeout)
			// Of the pods that excuse q, the one whose excusal lasts
			// longest.
			if p != q && s.Created.Before(created) && created.Sub(s.Created) >= timeout-unseenSlack && s.unseenAt(created) && !created.After(until) && until.After(out.Pods[q].Until) {
				out.Pods[q] = Excusal{Until: until, Reason: fmt.Sprintf("created %s after %s, which the subject had not seen yet (expectation timeout %s; excused until %s)",
					created.Sub(s.Created).Round(time.Millisecond), p, timeout, until.Format("15:04:05.000"))}
			}
		}
	}
	return out
}
