package judge

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// ErrDeletedInUse is the safety property of external-name reuse.
var ErrDeletedInUse = errors.New("a deleting owner must never delete an external resource after its successor started using it")

// ErrStatusLied is property (a): the claim must say it is deleting for the
// whole deletion.
var ErrStatusLied = errors.New("within 5s of the delete the claim must show Ready=False reason=Deleting, and keep showing it until it is gone")

// Op is one operation in the external system's log.
type Op struct {
	Op     string    `json:"op"` // observe, create, delete
	Name   string    `json:"name"`
	Owner  string    `json:"owner"`  // who asked
	Result string    `json:"result"` // ok, exists, notfound, failed
	At     time.Time `json:"at"`
}

// ClaimReady reads the Ready condition of a claim in a state.
func ClaimReady(s oracle.State, key string) (status, reason, message string, deleting, exists bool) {
	obj := s[key]
	if obj == nil {
		return "", "", "", false, false
	}
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Ready" {
			status, _ = m["status"].(string)
			reason, _ = m["reason"].(string)
			message, _ = m["message"].(string)
		}
	}
	return status, reason, message, obj.GetDeletionTimestamp() != nil, true
}

// DeletingWithin is how soon after its delete a claim must say it is
// deleting (property (a)).
const DeletingWithin = 5 * time.Second

// DeletingStatus judges property (a) over the claim's whole history: from
// within 5s of the delete until the claim is gone, every recorded state
// shows a deletionTimestamp and Ready=False reason=Deleting (stable for
// the window W before it counts as shown).
func DeletingStatus(h *oracle.History, key string, deleted time.Time, window time.Duration, now time.Time) error {
	shows := func(s oracle.State) (bool, string) {
		status, reason, _, deleting, exists := ClaimReady(s, key)
		return !exists || (deleting && status == "False" && reason == "Deleting"), fmt.Sprintf("deleting=%v Ready=%s reason=%s", deleting, status, reason)
	}
	r, err := oracle.Convergence{Since: deleted, Within: DeletingWithin, Window: window}.Check(h, shows, now)
	if err != nil {
		// Say what the claim showed when it had to speak.
		at := deleted.Add(DeletingWithin)
		if status, reason, _, deleting, exists := ClaimReady(h.StateAt(at), key); exists {
			return oracle.BrokeAt(at, fmt.Errorf("%w: %s after the delete it showed deleting=%v Ready=%s reason=%s (%w)", ErrStatusLied, DeletingWithin, deleting, status, reason, err))
		}
		return err
	}
	var broke error
	h.Replay(func(at time.Time, s oracle.State) {
		if broke != nil || !at.After(r.At) {
			return
		}
		if ok, why := shows(s); !ok {
			broke = oracle.BrokeAt(at, fmt.Errorf("%w: shown %s after the delete, then %s at %s", ErrStatusLied, r.At.Sub(deleted).Round(time.Millisecond), why, at.Format("15:04:05.000")))
		}
	})
	return broke
}

// NoDeleteInUse fails at the first successful delete by the old owner
// after the new owner created or observed the resource.
func NoDeleteInUse(ops []Op, name, oldOwner, newOwner string) error {
	used := false
	for _, op := range ops {
		if op.Name != name {
			continue
		}
		used = used || (op.Owner == newOwner && op.Result == "ok")
		if used && op.Owner == oldOwner && op.Op == "delete" && op.Result == "ok" {
			return oracle.BrokeAt(op.At, fmt.Errorf("%w: the old Managed deleted %s at %s", ErrDeletedInUse, name, op.At.Format("15:04:05.000")))
		}
	}
	return nil
}

// The facts of the harness's blocks: FactBlockFinalizer is the finalizer
// it holds the objects of FactBlocked with; FactRefusingDeletes is when it
// made the external system refuse deletes.
var (
	FactBlockFinalizer  = Fact[string]{Name: "blockFinalizer"}
	FactRefusingDeletes = Fact[time.Time]{Name: "refusingDeletes"}
)

// BlockInPlace is the premise of a block by finalizer: the harness's
// finalizer was on every object it blocked (keys), as some recorded state
// shows. Whether the subject's deletion then reached them is the
// subject's doing, judged by deletion-completes. Evidence that does not
// name the finalizer (from before it was recorded) needs each object
// recorded.
func BlockInPlace(h *oracle.History, keys []string, finalizer string) error {
	held := map[string]bool{}
	h.Replay(func(_ time.Time, s oracle.State) {
		for _, k := range keys {
			if obj := s[k]; obj != nil && (finalizer == "" || slices.Contains(obj.GetFinalizers(), finalizer)) {
				held[k] = true
			}
		}
	})
	for _, k := range keys {
		if !held[k] {
			return fmt.Errorf("no recorded state of %s carries the harness's finalizer %q: the block was not in place", k, finalizer)
		}
	}
	return nil
}

// DeletionBlocked is the premise of a block by the external system, for
// evidence from before the harness recorded when it made the system
// refuse (FactRefusingDeletes): the system refused at least one delete of
// name.
func DeletionBlocked(ops []Op, name string) error {
	for _, op := range ops {
		if op.Name == name && op.Op == "delete" && op.Result == "failed" {
			return nil
		}
	}
	return fmt.Errorf("the harness did not record making the external system refuse deletes, and it refused none of %s (%d operations logged)", name, len(ops))
}
