package chaos

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
)

// proxied selects the replicas a proxy fault acts on: the named ones, or
// every replica behind a proxy. The error says why none can be reached.
func proxied(t Target, names []string) ([]Replica, error) {
	var out []Replica
	if len(names) == 0 {
		for _, r := range t.Replicas {
			if r.Proxy != nil {
				out = append(out, r)
			}
		}
		if len(out) == 0 {
			return nil, errors.New("no replica of the subject runs behind the fault proxy")
		}
		return out, nil
	}
	for _, name := range names {
		r, ok := t.replica(name)
		switch {
		case !ok:
			return nil, fmt.Errorf("the subject has no replica %q", name)
		case r.Proxy == nil:
			return nil, fmt.Errorf("replica %q does not run behind the fault proxy", name)
		}
		out = append(out, r)
	}
	return out, nil
}

func identities(rs []Replica) string {
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = r.Identity
	}
	return strings.Join(names, ",")
}

// DetailRules is the detail of a proxy rule's injection that names the
// rule on each replica's proxy, "replica=rule-id" comma-separated: the
// proxy log names the rule on each event it held, delayed or dropped.
const DetailRules = "rules"

// Rules reads an injection's DetailRules: the rule's id by replica.
func Rules(inj Injection) map[string]string {
	out := map[string]string{}
	for _, pair := range strings.Split(inj.Detail[DetailRules], ",") {
		if replica, id, ok := strings.Cut(pair, "="); ok {
			out[replica] = id
		}
	}
	return out
}

// ProxyRule installs one proxy rule on some replicas' proxies, holds it for
// Duration (0: until Recover), then removes it. The constructors below name
// the common ones.
type ProxyRule struct {
	Label string
	Rule  proxy.Rule
	// Replicas by identity; empty means every replica behind a proxy.
	Replicas []string
	Duration time.Duration

	mu      sync.Mutex
	applied map[proxy.Controller]string // proxy -> rule ID
}

// Stall holds every event of the subject's watches on resource.
func Stall(resource string, d time.Duration) *ProxyRule {
	return &ProxyRule{Label: "watch-stall", Rule: proxy.Rule{Action: proxy.Stall, Match: proxy.Match{Resource: resource}}, Duration: d}
}

// DropEvents drops the watch events on resource that ev selects (a
// watch-list's initial events, a list, pass whole).
func DropEvents(resource string, ev proxy.EventMatch, d time.Duration) *ProxyRule {
	return &ProxyRule{Label: "event-drop", Rule: proxy.Rule{Action: proxy.Drop, Match: proxy.Match{Resource: resource}, Event: ev}, Duration: d}
}

// DelayEvents delays the watch events on resource that ev selects (a
// watch-list's initial events, a list, pass in time).
func DelayEvents(resource string, ev proxy.EventMatch, by, d time.Duration) *ProxyRule {
	return &ProxyRule{Label: "event-delay", Rule: proxy.Rule{Action: proxy.Delay, Match: proxy.Match{Resource: resource}, Event: ev, Delay: metav1.Duration{Duration: by}}, Duration: d}
}

// Partition cuts the named replica off from the API server; blackhole
// makes its requests hang instead of failing.
func Partition(replica string, blackhole bool, d time.Duration) *ProxyRule {
	return &ProxyRule{Label: "partition", Rule: proxy.Rule{Action: proxy.Partition, Blackhole: blackhole}, Replicas: []string{replica}, Duration: d}
}

// RespondWith answers the next count requests that m selects with code
// (count 0: all while active).
func RespondWith(code int, m proxy.Match, count int, d time.Duration) *ProxyRule {
	return &ProxyRule{Label: "respond-" + strconv.Itoa(code), Rule: proxy.Rule{Action: proxy.Respond, Code: code, Match: m, Count: count}, Duration: d}
}

// Name is the label given by the constructor.
func (f *ProxyRule) Name() string { return f.Label }

// Available checks the rule and that the replicas are behind proxies.
func (f *ProxyRule) Available(t Target) error {
	if err := f.Rule.Validate(); err != nil {
		return err
	}
	_, err := proxied(t, f.Replicas)
	return err
}

// Inject installs the rule on every selected proxy.
func (f *ProxyRule) Inject(ctx context.Context, t Target) (Injection, error) {
	rs, err := proxied(t, f.Replicas)
	if err != nil {
		return Injection{}, err
	}
	inj := Injection{Target: identities(rs), Start: time.Now(), Detail: map[string]string{}}
	f.mu.Lock()
	f.applied = map[proxy.Controller]string{}
	var rules []string
	for _, r := range rs {
		id, err := r.Proxy.AddRule(f.Rule)
		if err != nil {
			f.mu.Unlock()
			return inj, fmt.Errorf("%s on %s: %w", f.Label, r.Identity, err)
		}
		f.applied[r.Proxy] = id
		rules = append(rules, r.Identity+"="+id)
		inj.Detail[DetailRules] = strings.Join(rules, ",")
	}
	f.mu.Unlock()
	if f.Duration > 0 {
		select {
		case <-time.After(f.Duration):
		case <-ctx.Done():
			return inj, ctx.Err()
		}
		if err := f.Recover(ctx, t); err != nil {
			return inj, err
		}
		inj.End = time.Now()
	}
	return inj, nil
}

// Recover removes the rule from every proxy it was installed on.
func (f *ProxyRule) Recover(context.Context, Target) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	var errs []error
	for p, id := range f.applied {
		if err := p.RemoveRule(id); err != nil {
			errs = append(errs, fmt.Errorf("replica %s: %w", p.Replica(), err))
		}
	}
	f.applied = nil
	return errors.Join(errs...)
}

// WatchCut ends the subject's watches on Resource: cleanly (the client
// resumes from its resource version), or with Reset as a network failure
// (since 1.35 client-go relists at once).
type WatchCut struct {
	Resource string
	Reset    bool
	Replicas []string
}

// Name is watch-cut or watch-reset.
func (f WatchCut) Name() string {
	if f.Reset {
		return "watch-reset"
	}
	return "watch-cut"
}

// Available needs replicas behind proxies.
func (f WatchCut) Available(t Target) error {
	_, err := proxied(t, f.Replicas)
	return err
}

// Inject cuts the watches and records how many there were.
func (f WatchCut) Inject(_ context.Context, t Target) (Injection, error) {
	rs, err := proxied(t, f.Replicas)
	if err != nil {
		return Injection{}, err
	}
	inj := Injection{Target: identities(rs), Start: time.Now()}
	n := 0
	for _, r := range rs {
		cut := r.Proxy.CutWatches
		if f.Reset {
			cut = r.Proxy.ResetWatches
		}
		m, err := cut(proxy.Match{Resource: f.Resource})
		if err != nil {
			return inj, fmt.Errorf("replica %s: %w", r.Identity, err)
		}
		n += m
	}
	inj.End = inj.Start
	inj.Detail = map[string]string{DetailWatches: strconv.Itoa(n)}
	return inj, nil
}

// Recover has nothing to undo.
func (WatchCut) Recover(context.Context, Target) error { return nil }

// The details of a forced relist's injection besides its 410 rules
// (DetailRules): how many watches were cut, of what resource, and the
// replicas that did not take their 410 (comma-separated identities).
const (
	DetailWatches  = "watches"
	DetailResource = "resource"
	// DetailRelisted names the replicas that started over by themselves
	// (StartsOver) instead of taking the 410: their cut watch-list had not
	// synced.
	DetailRelisted = "relisted"
	// DetailStopped names the replicas that stopped instead.
	DetailStopped = "stopped"
)

// ForcedRelist makes the subject relist Resource: its watches are cut and
// the re-watch is answered with the 410 Expired event the watch cache
// sends, so client-go drops its resource version and lists again. Objects
// created and deleted while the watch was stalled are then never seen.
//
// Inject returns once every replica that had a watch has done one of
// three things: re-watched and taken its 410; started over by itself
// (StartsOver: a watch-list from no resource version), which reaches the
// same end without the 410 (client-go's reflector does so when a
// watch-list it had open is cut before its initial events ended, say
// because a stall held them; a synced one re-watches from its resource
// version and takes the 410); or stopped (a process fault at the same
// moment: it lists afresh when it starts again, and re-watches nothing
// until then). The last two are named in the injection's Detail
// (DetailRelisted, DetailStopped), and a replica that started over has its
// unused 410 rule removed at once. It fails after Timeout (default 30s).
type ForcedRelist struct {
	Resource string
	Replicas []string
	Timeout  time.Duration

	expire *ProxyRule
}

// Name is forced-relist.
func (f *ForcedRelist) Name() string { return "forced-relist" }

// Available needs replicas behind proxies.
func (f *ForcedRelist) Available(t Target) error {
	_, err := proxied(t, f.Replicas)
	return err
}

// Inject arms a one-shot 410 per replica, cuts the watches, and waits
// until each replica that had a watch took its 410, or started over by
// itself since the 410 was armed, or stopped.
func (f *ForcedRelist) Inject(ctx context.Context, t Target) (Injection, error) {
	rs, err := proxied(t, f.Replicas)
	if err != nil {
		return Injection{}, err
	}
	identity := map[proxy.Controller]string{}
	for _, r := range rs {
		identity[r.Proxy] = r.Identity
	}
	f.expire = &ProxyRule{Label: "expire", Replicas: f.Replicas,
		Rule: proxy.Rule{Action: proxy.Expire, Match: proxy.Match{Resource: f.Resource}, Count: 1}}
	inj, err := f.expire.Inject(ctx, t)
	if err != nil {
		return inj, err
	}
	f.expire.mu.Lock()
	pending := map[proxy.Controller]string{}
	cut := 0
	for p, id := range f.expire.applied {
		n, err := p.CutWatches(proxy.Match{Resource: f.Resource})
		if err != nil {
			f.expire.mu.Unlock()
			return inj, fmt.Errorf("replica %s: %w", identity[p], err)
		}
		if n > 0 {
			pending[p] = id
			cut += n
		}
	}
	f.expire.mu.Unlock()
	// Beside the 410 rule of each replica (DetailRules): the proxy log
	// names it on the 410 it answered.
	inj.Detail[DetailWatches] = strconv.Itoa(cut)
	inj.Detail[DetailResource] = f.Resource
	timeout := f.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	deadline := time.Now().Add(timeout)
	named := map[string][]string{}
	for len(pending) > 0 {
		for p, id := range pending {
			reqs := p.Requests()
			switch {
			case answered(reqs, id):
				delete(pending, p)
			case startedOver(reqs, f.Resource, inj.Start):
				delete(pending, p)
				named[DetailRelisted] = append(named[DetailRelisted], identity[p])
				f.removeExpire(p, id)
			case stopped(ctx, t, p):
				delete(pending, p)
				named[DetailStopped] = append(named[DetailStopped], identity[p])
			}
		}
		if len(pending) == 0 {
			break
		}
		if time.Now().After(deadline) {
			var late []string
			for p := range pending {
				late = append(late, identity[p])
			}
			slices.Sort(late)
			return inj, fmt.Errorf("replicas %v did not re-watch %s within %s of the cut", late, f.Resource, timeout)
		}
		select {
		case <-ctx.Done():
			return inj, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	for key, names := range named {
		slices.Sort(names)
		inj.Detail[key] = strings.Join(names, ",")
	}
	inj.End = time.Now()
	return inj, nil
}

// removeExpire removes the 410 rule id of a replica that started over by
// itself, before a later re-watch of its own can take it; one that cannot
// be removed now stays for Recover.
func (f *ForcedRelist) removeExpire(p proxy.Controller, id string) {
	f.expire.mu.Lock()
	defer f.expire.mu.Unlock()
	if p.RemoveRule(id) == nil {
		delete(f.expire.applied, p)
	}
}

// stopped reports whether the replica behind p has exited since it
// started. One its kubelet restarts in place (a Follower) is stopped
// while it is down only: once running again, after an exit before the
// cut, it has a watch to re-watch like any other.
func stopped(ctx context.Context, t Target, p proxy.Controller) bool {
	for _, r := range t.Replicas {
		if r.Proxy == p && r.Host != nil {
			if f, ok := r.Host.(Follower); ok {
				return f.Down(ctx)
			}
			return r.Host.Exited(ctx)
		}
	}
	return false
}

// answered reports whether one of reqs was answered by rule id.
func answered(reqs []proxy.Request, id string) bool {
	return slices.ContainsFunc(reqs, func(r proxy.Request) bool { return r.Fault == id })
}

// startedOver reports whether one of reqs, begun at from or later (the
// 410's arming: as the missed-events premise reads it), starts resource
// over (StartsOver), in flight or done.
func startedOver(reqs []proxy.Request, resource string, from time.Time) bool {
	return slices.ContainsFunc(reqs, func(r proxy.Request) bool {
		return !r.Start.Before(from) && StartsOver(r.RequestInfo, resource)
	})
}

// StartsOver says whether a request starts resource over: a watch-list
// (a watch with sendInitialEvents=true) from no resource version, which
// client-go's reflector opens when it has no resource version to resume
// from (it never synced, or a 410 took it). A LIST is not counted: the
// reflector falls back to one when a watch-list fails at once, and then
// watches from the list's resource version, which takes the 410 itself;
// another LIST is the controller's own business, not its cache's.
func StartsOver(info proxy.RequestInfo, resource string) bool {
	return (proxy.Match{Resource: resource}).Matches(info) && info.Verb == "watch" && info.SendInitialEvents && !info.Resumable()
}

// Recover removes any 410 rule not yet used.
func (f *ForcedRelist) Recover(ctx context.Context, t Target) error {
	if f.expire == nil {
		return nil
	}
	return f.expire.Recover(ctx, t)
}
