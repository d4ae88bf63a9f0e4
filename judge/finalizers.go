package judge

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// The safety properties, stated as docs/design.md's finalizer-race class
// does.
var (
	ErrStuck                  = errors.New("no object may stay deleting, paused and finalized for more than 30s")
	ErrFinalizerWhileDeleting = errors.New("a controller must never try to add its finalizer to an object being deleted")
	ErrCleanupWhilePaused     = errors.New("a paused object that gets a deletionTimestamp must cause no external cleanup")
)

// StuckBound is P2's bound.
const StuckBound = 30 * time.Second

// DefaultPausedPath is where the reference Cluster and Cluster API's keep
// their pause flag; evidence that names none means it.
const DefaultPausedPath = "spec.paused"

func paused(obj *unstructured.Unstructured, path string) bool {
	p, _, _ := unstructured.NestedBool(obj.Object, strings.Split(path, ".")...)
	return p
}

// stuck is the zombie state of the finalizer race (docs/design.md):
// deleting, paused and still
// carrying the controller's finalizer.
func stuck(obj *unstructured.Unstructured, finalizer, pausedPath string) bool {
	return obj != nil && obj.GetDeletionTimestamp() != nil && paused(obj, pausedPath) && slices.Contains(obj.GetFinalizers(), finalizer)
}

// Spell is one stretch of time an object was stuck; open when it still is.
type Spell struct {
	key      string
	from, to time.Time
	open     bool
}

// StuckSpells lists every stretch an object of the history was stuck (with
// the controller's finalizer, paused by the flag at pausedPath), up to now.
func StuckSpells(h *oracle.History, now time.Time, finalizer, pausedPath string) []Spell {
	var out []Spell
	started := map[string]time.Time{}
	h.Replay(func(at time.Time, s oracle.State) {
		for k, from := range started {
			if !stuck(s[k], finalizer, pausedPath) {
				out = append(out, Spell{key: k, from: from, to: at})
				delete(started, k)
			}
		}
		for k, obj := range s {
			if _, ok := started[k]; !ok && stuck(obj, finalizer, pausedPath) {
				started[k] = at
			}
		}
	})
	for k, from := range started {
		out = append(out, Spell{key: k, from: from, to: now, open: true})
	}
	return out
}

// NoneStuck is P2 as of now: it fails if an object stayed stuck longer
// than StuckBound. Open tells when the history has an object stuck for
// less than the bound so far (the verdict may still change: wait, then
// judge again).
func NoneStuck(h *oracle.History, now time.Time, finalizer, pausedPath, cluster string) (open time.Time, err error) {
	for _, s := range StuckSpells(h, now, finalizer, pausedPath) {
		if d := s.to.Sub(s.from); d > StuckBound {
			return time.Time{}, oracle.BrokeAt(s.from.Add(StuckBound), fmt.Errorf("%w: %s on the %s cluster was deleting, paused and finalized for %s", ErrStuck, s.key, cluster, d.Round(time.Millisecond)))
		}
		if s.open && (open.IsZero() || s.from.Before(open)) {
			open = s.from
		}
	}
	return open, nil
}

// FinalizerRefused is what the API server says when something adds a
// finalizer to an object being deleted (HTTP 422): "<Kind> "<name>" is
// invalid: metadata.finalizers: Forbidden: no new finalizers can be added
// if the object is being deleted, found new finalizers [...]".
const FinalizerRefused = "no new finalizers can be added if the object is being deleted"

// NoFinalizerRefused is P3 on one replica's proxy log: it fails at the
// first write to resource (any resource for "") the API server refused
// with FinalizerRefused.
// Any other refusal, a 422 from the schema included, is not P3's; nor is
// an answer the proxy's own fault gave. A 422 whose message the log does
// not keep (a proxy from before it kept them) cannot be told apart: P3 is
// then not evaluated, unless a refusal with the message broke it.
func NoFinalizerRefused(requests []proxy.Request, resource string) error {
	var unknown error
	for _, r := range requests {
		if (resource != "" && r.Resource != resource) || r.Code != 422 || r.Fault != "" {
			continue
		}
		if strings.Contains(r.Message, FinalizerRefused) {
			return oracle.BrokeAt(r.Start, fmt.Errorf("%w: the API server refused %s %s/%s at %s: %s", ErrFinalizerWhileDeleting, r.Verb, r.Resource, r.Name, r.Start.Format("15:04:05.000"), r.Message))
		}
		if r.Message == "" && unknown == nil {
			unknown = fmt.Errorf("%w: the API server answered %s %s/%s 422 at %s and the proxy log keeps no message: a finalizer refused cannot be told from another rejection", oracle.ErrNotEvaluated, r.Verb, r.Resource, r.Name, r.Start.Format("15:04:05.000"))
		}
	}
	return unknown
}

// MoverRefused is P3 on a mover's failure (the fact moverError or
// moverBackError): broken when the API server refused it with
// FinalizerRefused. bugs.md 1: a move back onto a cluster that still holds
// an object the controller re-finalized fails so.
func MoverRefused(fact, failure string) error {
	if !strings.Contains(failure, FinalizerRefused) {
		return nil
	}
	return fmt.Errorf("%w: the API server refused the mover (%s): %s", ErrFinalizerWhileDeleting, fact, strings.TrimSpace(failure))
}

// NoCleanupWhilePaused is P4 judged from the recorded histories, not from
// anything the controller says about itself: each cleanup record the
// controller stored (its external side effect) is placed in the Cluster's
// history by store revision, and the Cluster must not have been paused
// then.
func NoCleanupWhilePaused(clusters, cleanups []oracle.Event, uidLabel, pausedPath, cluster string) error {
	for _, c := range cleanups {
		if c.Type != "ADDED" {
			continue
		}
		uid := c.Object.GetLabels()[uidLabel]
		var before *oracle.Event
		for i := range clusters {
			e := &clusters[i]
			if string(e.Object.GetUID()) == uid && e.Revision() < c.Revision() {
				before = e
			}
		}
		if before == nil {
			return fmt.Errorf("%w: %w: cleanup record %s names Cluster uid %s, which the %s cluster's history does not have", oracle.ErrNotEvaluated, ErrCleanupWhilePaused, c.Key, uid, cluster)
		}
		if paused(before.Object, pausedPath) {
			return oracle.BrokeAt(c.At, fmt.Errorf("%w: cleanup of %s ran on the %s cluster while it was paused (deleting=%v)", ErrCleanupWhilePaused, before.Key, cluster, before.Object.GetDeletionTimestamp() != nil))
		}
	}
	return nil
}
