package finalizer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/reference/capi"
	"github.com/steadystate-dev/steadystate/suites/oracle"
)

// The safety properties, stated as bugs.md does.
var (
	ErrStuck                  = errors.New("no object may stay deleting, paused and finalized for more than 30s")
	ErrFinalizerWhileDeleting = errors.New("a controller must never try to add its finalizer to an object being deleted")
	ErrCleanupWhilePaused     = errors.New("a paused object that gets a deletionTimestamp must cause no external cleanup")
)

// stuckBound is P2's bound.
const stuckBound = 30 * time.Second

func paused(obj *unstructured.Unstructured) bool {
	p, _, _ := unstructured.NestedBool(obj.Object, "spec", "paused")
	return p
}

// stuck is the zombie state of bugs.md 1: deleting, paused and still
// carrying the controller's finalizer.
func stuck(obj *unstructured.Unstructured) bool {
	return obj != nil && obj.GetDeletionTimestamp() != nil && paused(obj) && slices.Contains(obj.GetFinalizers(), capi.Finalizer)
}

// spell is one stretch of time an object was stuck; open when it still is.
type spell struct {
	key      string
	from, to time.Time
	open     bool
}

// stuckSpells lists every stretch an object of the history was stuck, up
// to now.
func stuckSpells(h *oracle.History, now time.Time) []spell {
	var out []spell
	started := map[string]time.Time{}
	h.Replay(func(at time.Time, s oracle.State) {
		for k, from := range started {
			if !stuck(s[k]) {
				out = append(out, spell{key: k, from: from, to: at})
				delete(started, k)
			}
		}
		for k, obj := range s {
			if _, ok := started[k]; !ok && stuck(obj) {
				started[k] = at
			}
		}
	})
	for k, from := range started {
		out = append(out, spell{key: k, from: from, to: now, open: true})
	}
	return out
}

// noneStuck is P2 over a history: while an object is stuck but not yet
// for the bound it waits, then it fails if one stayed stuck longer.
func noneStuck(ctx context.Context, h *oracle.History, cluster string) error {
	for {
		var wake time.Time
		for _, s := range stuckSpells(h, time.Now()) {
			if d := s.to.Sub(s.from); d > stuckBound {
				return oracle.BrokeAt(s.from.Add(stuckBound), fmt.Errorf("%w: %s on the %s cluster was deleting, paused and finalized for %s", ErrStuck, s.key, cluster, d.Round(time.Millisecond)))
			}
			if s.open && (wake.IsZero() || s.from.Before(wake)) {
				wake = s.from
			}
		}
		if wake.IsZero() {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-h.Changed():
		case <-time.After(time.Until(wake.Add(stuckBound + 100*time.Millisecond))):
		}
	}
}

// noCleanupWhilePaused is P4 judged from the recorded histories, not from
// anything the controller says about itself: each cleanup record the
// controller stored (its external side effect) is placed in the Cluster's
// history by store revision, and the Cluster must not have been paused
// then.
func noCleanupWhilePaused(clusters, cleanups []oracle.Event, cluster string) error {
	for _, c := range cleanups {
		if c.Type != "ADDED" {
			continue
		}
		uid := c.Object.GetLabels()[capi.LabelCleanupUID]
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
		if paused(before.Object) {
			return oracle.BrokeAt(c.At, fmt.Errorf("%w: cleanup of %s ran on the %s cluster while it was paused (deleting=%v)", ErrCleanupWhilePaused, before.Key, cluster, before.Object.GetDeletionTimestamp() != nil))
		}
	}
	return nil
}
