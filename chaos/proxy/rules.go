package proxy

import (
	"fmt"
	"slices"
	"strconv"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Action is the fault a rule injects.
type Action string

// The actions. Rules stay active until removed, or until Count matching
// requests have been answered.
const (
	// Stall holds every event of matching watches: the stream stays open
	// and nothing is delivered until the rule is removed (then the held
	// events are delivered in order) or the watch is cut (then they are
	// dropped).
	Stall Action = "stall"
	// Expire answers matching resumed watches (those with a
	// resourceVersion) with the ERROR event the API server sends for an
	// expired resource version: Status code 410, reason Expired, message
	// "too old resource version: X (Y)".
	Expire Action = "expire"
	// Drop drops the watch events that match Event, but for a
	// watch-list's initial events, which are a list (forEvent).
	Drop Action = "drop"
	// Delay delays the watch events that match Event by Delay, holding the
	// stream behind them so order is kept, but for a watch-list's initial
	// events.
	Delay Action = "delay"
	// Partition refuses every request (the connection is reset) and cuts
	// every watch; with Blackhole, requests hang instead until the rule is
	// removed or the client gives up, and watches go silent.
	Partition Action = "partition"
	// Respond answers matching requests with Code (429, 500, 409, ...) and
	// a Status body, without reaching the API server.
	Respond Action = "respond"
	// Slow holds each matching request (not a watch) for Delay before it
	// reaches the API server: it widens the window between a client's
	// requests, where races between controllers and tools live.
	Slow Action = "slow"
)

var actions = []Action{Stall, Expire, Drop, Delay, Partition, Respond, Slow}

// Match selects requests. Empty fields match anything.
type Match struct {
	// Verbs: get, list, watch, create, update, patch, delete, deletecollection.
	Verbs []string `json:"verbs,omitempty"`
	// Resource is "pods" or "leases.coordination.k8s.io"; the bare resource
	// name matches any group.
	Resource string `json:"resource,omitempty"`
	// Resources, when set, is several resources, any of which matches,
	// each named as Resource is: one rule for all the resources a
	// controller reconciles (the objects' and what they own), and none of
	// the others (its Lease, its Events).
	Resources []string `json:"resources,omitempty"`
	Namespace string   `json:"namespace,omitempty"`
	Name      string   `json:"name,omitempty"`
}

// Matches reports whether the request is selected.
func (m Match) Matches(r RequestInfo) bool {
	return (len(m.Verbs) == 0 || slices.Contains(m.Verbs, r.Verb)) &&
		(m.Resource == "" || namesResource(m.Resource, r)) &&
		(len(m.Resources) == 0 || slices.ContainsFunc(m.Resources, func(res string) bool { return namesResource(res, r) })) &&
		(m.Namespace == "" || m.Namespace == r.Namespace) &&
		(m.Name == "" || m.Name == r.Name)
}

// namesResource reports whether res ("pods", "deployments.apps") names the
// request's resource.
func namesResource(res string, r RequestInfo) bool {
	return res == r.Resource || res == r.GroupResource()
}

// EventMatch selects watch events. Empty fields match anything.
type EventMatch struct {
	// Types: ADDED, MODIFIED, DELETED, BOOKMARK, ERROR.
	Types     []string `json:"types,omitempty"`
	Namespace string   `json:"namespace,omitempty"`
	Name      string   `json:"name,omitempty"`
}

// Matches reports whether the event is selected.
func (m EventMatch) Matches(e EventMeta) bool {
	return (len(m.Types) == 0 || slices.Contains(m.Types, e.Type)) &&
		(m.Namespace == "" || m.Namespace == e.Namespace) &&
		(m.Name == "" || m.Name == e.Name)
}

// Rule is one fault.
type Rule struct {
	Action Action `json:"action"`
	// Match selects the requests, or for Stall, Drop and Delay the watches,
	// the rule acts on.
	Match Match `json:"match"`
	// Event narrows Drop and Delay to some events.
	Event EventMatch `json:"event"`
	// Count limits Expire and Respond to the next Count matching requests;
	// 0 means every one while the rule is active.
	Count int `json:"count,omitempty"`
	// Skip lets the first Skip matching requests through untouched before
	// Expire or Respond acts: with Count 1, the rule answers the
	// (Skip+1)-th matching request alone (the last write of a chain, as
	// a fault-free run counted it).
	Skip int `json:"skip,omitempty"`
	// Delay is how long Delay holds each event, and Slow each request.
	Delay metav1.Duration `json:"delay"`
	// Code is the HTTP status Respond answers with.
	Code int `json:"code,omitempty"`
	// Conflict makes a Respond 409 a real conflict: before each answer,
	// the object the update, patch or delete names is written straight to
	// the API server, as another party would (ConflictMark; the
	// request's record says what the write made, Request.Conflict). A
	// 409 the API server gives means the object changed since the client
	// read it, and that change comes to the client's watch: a controller
	// may rightly wait for it instead of retrying (Kubernetes' tokens
	// controller does). A 409 with no write behind it brings no such
	// event, and a controller that waits for one waits for ever, by the
	// fault's doing. A create (409 there means it already exists) and a
	// request that names no object are answered without a write.
	Conflict bool `json:"conflict,omitempty"`
	// Blackhole makes Partition hang requests instead of refusing them.
	Blackhole bool `json:"blackhole,omitempty"`
}

// Validate says what is wrong with a rule.
func (r Rule) Validate() error {
	if !slices.Contains(actions, r.Action) {
		return fmt.Errorf("unknown action %q: use one of %v", r.Action, actions)
	}
	if r.Count < 0 {
		return fmt.Errorf("%s: count %d is negative", r.Action, r.Count)
	}
	if r.Skip < 0 {
		return fmt.Errorf("%s: skip %d is negative", r.Action, r.Skip)
	}
	switch r.Action {
	case Delay, Slow:
		if r.Delay.Duration <= 0 {
			return fmt.Errorf("%s: needs a positive delay, got %s", r.Action, r.Delay.Duration)
		}
	case Respond:
		if r.Code < 400 || r.Code > 599 {
			return fmt.Errorf("respond: code %d is not an HTTP error status (400-599), for example 429, 500 or 409", r.Code)
		}
	}
	if r.Conflict && (r.Action != Respond || r.Code != 409) {
		return fmt.Errorf("%s: conflict is for respond with code 409 only, got code %d", r.Action, r.Code)
	}
	return nil
}

// ruleSet is the proxy's active rules.
type ruleSet struct {
	mu      sync.Mutex
	next    int
	rules   map[string]*activeRule
	changed chan struct{} // closed and replaced on every change
}

type activeRule struct {
	Rule
	id   string
	seq  int
	used int
	// skipped counts the matching requests let through (Rule.Skip).
	skipped int
}

func newRuleSet() *ruleSet {
	return &ruleSet{rules: map[string]*activeRule{}, changed: make(chan struct{})}
}

func (s *ruleSet) add(r Rule) (string, error) {
	if err := r.Validate(); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	id := string(r.Action) + "-" + strconv.Itoa(s.next)
	s.rules[id] = &activeRule{Rule: r, id: id, seq: s.next}
	s.notifyLocked()
	return id, nil
}

func (s *ruleSet) remove(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.rules[id]
	delete(s.rules, id)
	s.notifyLocked()
	return ok
}

func (s *ruleSet) clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.rules)
	s.notifyLocked()
}

func (s *ruleSet) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// watchChanges returns a channel closed at the next change of the rules.
func (s *ruleSet) watchChanges() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// take returns the first active rule of action that matches the request and
// uses up one of its Count; a rule still letting requests through
// (Rule.Skip) counts this one and is passed over.
func (s *ruleSet) take(action Action, info RequestInfo, eligible func(Rule) bool) (Rule, string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.orderedLocked() {
		id := r.id
		if r.Action != action || !r.Match.Matches(info) || (eligible != nil && !eligible(r.Rule)) {
			continue
		}
		if r.skipped < r.Skip {
			r.skipped++
			continue
		}
		r.used++
		if r.Count > 0 && r.used >= r.Count {
			delete(s.rules, id)
			s.notifyLocked()
		}
		return r.Rule, id, true
	}
	return Rule{}, "", false
}

// partition returns the oldest active partition rule, if any. A partition
// cuts the replica off from everything, so Match does not apply.
func (s *ruleSet) partition() (id string, blackhole, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.orderedLocked() {
		if r.Action == Partition {
			return r.id, r.Blackhole, true
		}
	}
	return "", false, false
}

func (s *ruleSet) has(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.rules[id]
	return ok
}

// eventVerdict is what happens to one watch event.
type eventVerdict struct {
	hold  bool // stall or blackhole: keep it until the rule goes
	drop  bool // never deliver it
	delay metav1.Duration
	rule  string // the rule responsible
}

// forEvent is what the rules do to f, an event of watch. A watch-list's
// initial events are a list, whole or not at all, as a LIST answer is:
// a stall or a blackhole holds them (the list comes late), no rule drops
// or delays one of them (which would make the informer's store lack an
// object that exists, a state no fault of the API server or the network
// can make).
func (s *ruleSet) forEvent(watch RequestInfo, f frame) eventVerdict {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := f.meta
	var v eventVerdict
	for _, r := range s.orderedLocked() {
		id := r.id
		switch {
		case r.Action == Partition && r.Blackhole, r.Action == Stall && r.Match.Matches(watch):
			return eventVerdict{hold: true, rule: id}
		case f.initial:
			// A list's item: neither dropped nor delayed.
		case r.Action == Drop && r.Match.Matches(watch) && r.Event.Matches(e):
			v.drop, v.rule = true, id
		case r.Action == Delay && r.Match.Matches(watch) && r.Event.Matches(e) && !v.drop:
			if r.Delay.Duration > v.delay.Duration {
				v.delay, v.rule = r.Delay, id
			}
		}
	}
	return v
}

// orderedLocked lists the rules oldest first.
func (s *ruleSet) orderedLocked() []*activeRule {
	rs := make([]*activeRule, 0, len(s.rules))
	for _, r := range s.rules {
		rs = append(rs, r)
	}
	slices.SortFunc(rs, func(a, b *activeRule) int { return a.seq - b.seq })
	return rs
}
