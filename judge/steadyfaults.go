package judge

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// The reconcile suite's faults at the moments that break controllers:
// a stale view (the watches of the objects and of what they own stalled
// while another party writes), missed events (their events dropped, then a
// forced relist) and refused writes (the controller's writes answered 429,
// then 500, then 409). Each spec's premise reads the fault timeline, the
// proxy logs and the writes the harness made while the fault acted
// (FactSteadyDisturbed).

// FactSteadyDisturbed is the writes another party (the harness) made
// while a fault acted, as JSON.
var FactSteadyDisturbed = Fact[[]Disturbance]{Name: "reconcile/disturbed"}

// The faults' names on the timeline.
var (
	faultStall  = chaos.Stall("", 0).Name()
	faultDrop   = chaos.DropEvents("", proxy.EventMatch{}, 0).Name()
	faultRelist = (&chaos.ForcedRelist{}).Name()
)

// RefusedCodes are the answers the refused-writes spec gives the
// controller's writes, in this order.
var RefusedCodes = []int{429, 500, 409}

// RespondFault is the name on the timeline of the fault that answers with
// code (chaos.RespondWith).
func RespondFault(code int) string { return chaos.RespondWith(code, proxy.Match{}, 0, 0).Name() }

// Disturbance is one write another party made while a fault acted: the
// next change of the binding, or, when it binds none, the deletion of an
// object the controller owns (Owned: the reference runs made no such
// deletion, and the controller's re-creation of the object is owed, not
// churn).
type Disturbance struct {
	What string `json:"what"`
	// Key is the object's joined key (SteadyKey); Resource its resource
	// (plural, with its group but for the core group).
	Key       string    `json:"key"`
	Resource  string    `json:"resource"`
	Kind      string    `json:"kind"`
	Namespace string    `json:"namespace"`
	Name      string    `json:"name"`
	Owned     bool      `json:"owned,omitempty"`
	At        time.Time `json:"at"`
}

func (d Disturbance) object() string { return d.Kind + " " + d.Namespace + "/" + d.Name }

// event reports whether a proxy event is of the disturbed object.
func (d Disturbance) event(ev proxy.Event) bool {
	return ev.Kind == d.Kind && ev.Namespace == d.Namespace && ev.Name == d.Name
}

// Owned is the joined keys of the objects of s that keys' objects own, by
// ownerReferences, transitively, keys included (those present), sorted.
func Owned(s oracle.State, keys []string) []string { return owned(s, keys) }

// SteadyResource is the resource (plural, with its group but for the core
// group) of a joined key of the steady-state histories, "" when key is
// not one.
func SteadyResource(key string) string {
	h, _, ok := strings.Cut(key, ":")
	if !ok || !strings.HasPrefix(h, "steady/") {
		return ""
	}
	res, _, _ := strings.Cut(strings.TrimPrefix(h, "steady/"), "@")
	return res
}

// disturbances reads FactSteadyDisturbed: none is the premise's failure
// (the harness wrote nothing while the fault acted).
func disturbances(e *evidence.Evidence) ([]Disturbance, error) {
	r := read(e)
	ds := get(r, FactSteadyDisturbed)
	if err := r.missing(); err != nil {
		return nil, err
	}
	if len(ds) == 0 {
		return nil, errors.New("the harness wrote nothing while the fault acted")
	}
	return ds, nil
}

// during is the disturbances made while inj acted.
func during(ds []Disturbance, inj chaos.Injection) []Disturbance {
	var out []Disturbance
	for _, d := range ds {
		if !d.At.Before(inj.Start) && !d.At.After(inj.End) {
			out = append(out, d)
		}
	}
	return out
}

// ruleEvent finds, in the proxy logs of inj's rules, an event of one of
// ds that the rule acted on (delivered is what the rule did with it: a
// stall delivers what it held once it goes, a drop never does).
func ruleEvent(e *evidence.Evidence, inj chaos.Injection, ds []Disturbance, delivered bool) (*proxy.Event, error) {
	rules := chaos.Rules(inj)
	if len(rules) == 0 {
		return nil, fmt.Errorf("%w: the %s at %s names no proxy rule", oracle.ErrNotEvaluated, inj.Fault, inj.Start.Format("15:04:05.000"))
	}
	for _, replica := range slices.Sorted(maps.Keys(rules)) {
		p, ok := e.Proxies[replica]
		if !ok {
			return nil, fmt.Errorf("%w: proxy log of %q: %w", oracle.ErrNotEvaluated, replica, evidence.ErrMissing)
		}
		for i, ev := range p.Events {
			if ev.Fault == rules[replica] && ev.Delivered == delivered && slices.ContainsFunc(ds, func(d Disturbance) bool { return d.event(ev) }) {
				return &p.Events[i], nil
			}
		}
	}
	return nil, nil
}

func objects(ds []Disturbance) string {
	var out []string
	for _, d := range ds {
		out = append(out, d.object())
	}
	return strings.Join(out, ", ")
}

// staleView is the stale-view premise: the watches were stalled, another
// party wrote while they were, and the stall held that write's event from
// the controller until the watch resumed (it delivered it as the stall's).
func staleView(e *evidence.Evidence) error {
	injs, err := Injected(e.Faults, faultStall)
	if err != nil {
		return err
	}
	ds, err := disturbances(e)
	if err != nil {
		return err
	}
	var why []string
	for _, inj := range injs {
		in := during(ds, inj)
		if len(in) == 0 {
			why = append(why, fmt.Sprintf("the stall of %s-%s saw no write of the harness", inj.Start.Format("15:04:05.000"), inj.End.Format("15:04:05.000")))
			continue
		}
		ev, err := ruleEvent(e, inj, in, true)
		if err != nil {
			return err
		}
		if ev != nil {
			return nil
		}
		why = append(why, fmt.Sprintf("the stall held no event of %s, written while it lasted: the controller saw the write unstalled, or the stall ended before the event reached it", objects(in)))
	}
	return errors.New(strings.Join(why, "; "))
}

// missedEvents is the missed-events premise: another party wrote while the
// watches' events were dropped, the drop dropped that write's event, and
// then the forced relist of that object's resource answered a re-watch of
// the controller with 410 Expired (or the controller started over by
// itself, its cut watch-list not synced); no relist failed.
func missedEvents(e *evidence.Evidence) error {
	drops, err := Injected(e.Faults, faultDrop)
	if err != nil {
		return err
	}
	relists, err := Injected(e.Faults, faultRelist)
	if err != nil {
		return err
	}
	ds, err := disturbances(e)
	if err != nil {
		return err
	}
	for _, drop := range drops {
		in := during(ds, drop)
		if len(in) == 0 {
			continue
		}
		ev, err := ruleEvent(e, drop, in, false)
		if err != nil {
			return err
		}
		if ev == nil {
			return fmt.Errorf("the drop dropped no event of %s, written while it lasted: the controller missed nothing", objects(in))
		}
		var res string
		for _, d := range in {
			if d.event(*ev) {
				res = d.Resource
			}
		}
		for _, relist := range relists {
			if relist.Start.Before(ev.At) || relist.Detail[chaos.DetailResource] != res {
				continue
			}
			expired, err := relisted(e, relist)
			if err != nil {
				return err
			}
			if expired {
				return nil
			}
		}
		return fmt.Errorf("after the drop of the event of %s at %s, no forced relist of %s answered a re-watch of the controller with 410 Expired, nor saw it start over by itself", ev.Kind+" "+ev.Namespace+"/"+ev.Name, ev.At.Format("15:04:05.000"), res)
	}
	return fmt.Errorf("no drop saw a write of the harness while it lasted (%d writes)", len(ds))
}

// relisted reports whether a forced relist reached a replica: its 410
// was delivered, or the replica started over by itself while the relist
// acted (chaos.DetailRelisted: its cut watch-list had not synced, and the
// proxy log shows the watch-list from no resource version,
// chaos.StartsOver).
func relisted(e *evidence.Evidence, relist chaos.Injection) (bool, error) {
	rules := chaos.Rules(relist)
	if len(rules) == 0 {
		return false, fmt.Errorf("%w: the %s at %s names no proxy rule", oracle.ErrNotEvaluated, relist.Fault, relist.Start.Format("15:04:05.000"))
	}
	self := strings.Split(relist.Detail[chaos.DetailRelisted], ",")
	for replica, id := range rules {
		p, ok := e.Proxies[replica]
		if !ok {
			return false, fmt.Errorf("%w: proxy log of %q: %w", oracle.ErrNotEvaluated, replica, evidence.ErrMissing)
		}
		if slices.ContainsFunc(p.Events, func(ev proxy.Event) bool {
			return ev.Fault == id && ev.Delivered && ev.Type == "ERROR" && ev.Code == 410
		}) {
			return true, nil
		}
		if slices.Contains(self, replica) && slices.ContainsFunc(p.Requests, func(r proxy.Request) bool {
			return !r.Start.Before(relist.Start) && !r.Start.After(relist.End) && chaos.StartsOver(r.RequestInfo, relist.Detail[chaos.DetailResource])
		}) {
			return true, nil
		}
	}
	return false, nil
}

// writesRefused is the refused-writes premise: the proxy answered the
// controller's writes with each of RefusedCodes, one after the other,
// each answering at least one write of an object (Lease and Event writes
// aside), and another party wrote while they acted. Each code's rule is
// armed after the one before it and may be armed before that one is
// lifted, so that no write passes between them: a proxy answers with its
// oldest matching rule, so the later answers only once the earlier is
// gone.
func writesRefused(e *evidence.Evidence) error {
	ds, err := disturbances(e)
	if err != nil {
		return err
	}
	var prev *chaos.Injection
	var first, last chaos.Injection
	for i, code := range RefusedCodes {
		injs, err := Injected(e.Faults, RespondFault(code))
		if err != nil {
			return err
		}
		inj := injs[0]
		if prev != nil && inj.Start.Before(prev.Start) {
			return fmt.Errorf("the %s began at %s, before the %s (%s): the codes were to follow one another", inj.Fault, inj.Start.Format("15:04:05.000"), prev.Fault, prev.Start.Format("15:04:05.000"))
		}
		n, err := answeredWrites(e, inj)
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("the %s (%s-%s) answered no write of the controller", inj.Fault, inj.Start.Format("15:04:05.000"), inj.End.Format("15:04:05.000"))
		}
		if i == 0 {
			first = inj
		}
		last, prev = inj, &injs[0]
	}
	if len(during(ds, chaos.Injection{Start: first.Start, End: last.End})) == 0 {
		return fmt.Errorf("the harness wrote nothing while the answers were refused (%s-%s)", first.Start.Format("15:04:05.000"), last.End.Format("15:04:05.000"))
	}
	return nil
}

// WritesRefusedUnbound says why the refused-writes premise is not
// bound, "" when it is judged: the first refusal (RefusedCodes[0]) was
// armed, the harness wrote while it was (FactSteadyDisturbed: the
// changes one at a time, then a deletion of an object of the
// controller's own), and the controller made no write while it was: the
// rule answered none, and none of the run's (RunWrite) went past it. A
// controller with nothing to do (the Job controller once its Jobs are
// complete) has no write to refuse, and the spec's properties say
// nothing of refused writes then: not judged, never a pass and never a
// finding. A write the controller made that the rule did not answer is
// the premise's to judge (writesRefused), as is evidence that does not
// tell: a refusal that failed or is not on the timeline, no write of the
// harness, a proxy log missing.
func WritesRefusedUnbound(e *evidence.Evidence) string {
	injs, err := Injected(e.Faults, RespondFault(RefusedCodes[0]))
	if err != nil {
		return ""
	}
	inj := injs[0]
	ds, err := disturbances(e)
	if err != nil || len(during(ds, inj)) == 0 {
		return ""
	}
	rules := chaos.Rules(inj)
	if len(rules) == 0 {
		return ""
	}
	// The run's namespace; in evidence that does not record it, the
	// first disturbed object's that has one (a cluster-scoped one's is
	// "").
	ns, _ := FactSteadyNamespace.Lookup(e)
	for _, d := range ds {
		if ns == "" {
			ns = d.Namespace
		}
	}
	named := read(e).clusterScoped()
	for replica, id := range rules {
		p, ok := e.Proxies[replica]
		if !ok {
			return ""
		}
		for _, req := range p.Requests {
			if !IsControllerWrite(req.RequestInfo) {
				continue
			}
			if req.Fault == id || (RunWrite(req, ns, named...) && !req.Start.Before(inj.Start) && !req.Start.After(inj.End)) {
				return ""
			}
		}
	}
	return fmt.Sprintf("the controller made no write while the refusal was armed (the %s of %s-%s answered none, and none went past it), though the harness wrote meanwhile (%s): with nothing to do it has no write to refuse, so nothing here tells how it meets refused writes",
		inj.Fault, inj.Start.Format("15:04:05.000"), inj.End.Format("15:04:05.000"), whats(during(ds, inj)))
}

// whats are the disturbances' writes in words, in order.
func whats(ds []Disturbance) string {
	var out []string
	for _, d := range ds {
		out = append(out, d.What)
	}
	return strings.Join(out, "; ")
}

// answeredWrites counts the writes of objects (Lease and Event writes
// aside) that inj's rules answered.
func answeredWrites(e *evidence.Evidence, inj chaos.Injection) (int, error) {
	rules := chaos.Rules(inj)
	if len(rules) == 0 {
		return 0, fmt.Errorf("%w: the %s at %s names no proxy rule", oracle.ErrNotEvaluated, inj.Fault, inj.Start.Format("15:04:05.000"))
	}
	n := 0
	for replica, id := range rules {
		p, ok := e.Proxies[replica]
		if !ok {
			return 0, fmt.Errorf("%w: proxy log of %q: %w", oracle.ErrNotEvaluated, replica, evidence.ErrMissing)
		}
		for _, req := range p.Requests {
			if req.Fault == id && IsControllerWrite(req.RequestInfo) {
				n++
			}
		}
	}
	return n, nil
}

// ownedDeletions counts, by resource, the objects the controller owns that
// the harness deleted while a fault acted (Disturbance.Owned): the
// controller owes one create of each more than the reference runs made.
// The faults that come with the harness's writes need the record of them;
// others (a restart) have none.
func ownedDeletions(e *evidence.Evidence) (map[string]int, error) {
	out := map[string]int{}
	disturbing := slices.ContainsFunc(e.Faults, func(inj chaos.Injection) bool {
		return inj.Fault == faultStall || inj.Fault == faultDrop || slices.ContainsFunc(RefusedCodes, func(c int) bool { return inj.Fault == RespondFault(c) })
	})
	if !FactSteadyDisturbed.Has(e) && !disturbing {
		return out, nil
	}
	r := read(e)
	ds := get(r, FactSteadyDisturbed)
	if err := r.missing(); err != nil {
		return nil, err
	}
	for _, d := range ds {
		if d.Owned {
			out[d.Resource]++
		}
	}
	return out, nil
}
