package judge

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// tracker follows a state as it is replayed, change by change: which
// objects the roots own (themselves included, transitively, by
// ownerReferences) and which of those are not ready. Each state it is
// given is compared with the one before by object identity (a replayed
// state changes one object at a time, and a recorded object is never
// changed in place), so following a run costs a pass over the keys and the
// work of what changed, not ownership and readiness of every object at
// every event. Not safe for concurrent use.
type tracker struct {
	roots     []string
	overrides []ReadinessOverride
	// judge says whether readiness is followed at all.
	judge bool

	gen    uint64
	objs   map[string]*unstructured.Unstructured // the last state's objects
	seen   map[string]uint64                     // the gen a key was last seen in
	uids   map[string]string                     // key -> uid
	owners map[string][]string                   // key -> owner uids
	// owned are the keys the roots own; notReady, of those, the ones not
	// ready with why.
	owned    map[string]bool
	notReady map[string]string
	ready    map[*unstructured.Unstructured]readiness
	// changed is update's result, its array reused.
	changed []string
}

type readiness struct {
	ok  bool
	why string
}

// newTracker follows what roots own and, with judge, its readiness.
func newTracker(roots []string, overrides []ReadinessOverride, judge bool) *tracker {
	return &tracker{roots: roots, overrides: overrides, judge: judge, objs: map[string]*unstructured.Unstructured{}, seen: map[string]uint64{},
		uids: map[string]string{}, owners: map[string][]string{}, owned: map[string]bool{}, notReady: map[string]string{},
		ready: map[*unstructured.Unstructured]readiness{}}
}

// update moves the tracker to state s and returns the keys whose object is
// new or changed (valid until the next update); structural says the owned
// keys may have changed (an object came or went, or its uid or owners
// changed).
func (t *tracker) update(s oracle.State) (changed []string, structural bool) {
	t.gen++
	changed = t.changed[:0]
	defer func() { t.changed = changed }()
	for k, o := range s {
		t.seen[k] = t.gen
		if t.objs[k] == o {
			continue
		}
		old := t.objs[k]
		t.objs[k] = o
		changed = append(changed, k)
		uid, owners := string(o.GetUID()), ownerUIDs(o)
		if old == nil || t.uids[k] != uid || !slices.Equal(t.owners[k], owners) {
			structural = true
		}
		t.uids[k], t.owners[k] = uid, owners
	}
	if len(t.objs) > len(s) {
		for k := range t.objs {
			if t.seen[k] != t.gen {
				delete(t.objs, k)
				delete(t.seen, k)
				delete(t.uids, k)
				delete(t.owners, k)
				structural = true
			}
		}
	}
	if structural {
		t.reown()
	}
	if !t.judge {
		return changed, structural
	}
	if structural {
		clear(t.notReady)
		for k := range t.owned {
			t.judgeReady(k)
		}
		return changed, structural
	}
	for _, k := range changed {
		if t.owned[k] {
			t.judgeReady(k)
		}
	}
	return changed, structural
}

// reown finds the owned keys again: the roots present, and every object
// whose owner is owned.
func (t *tracker) reown() {
	clear(t.owned)
	children := map[string][]string{} // owner uid -> keys
	for k, owners := range t.owners {
		for _, uid := range owners {
			children[uid] = append(children[uid], k)
		}
	}
	var queue []string
	for _, k := range t.roots {
		if t.objs[k] != nil && !t.owned[k] {
			t.owned[k] = true
			queue = append(queue, k)
		}
	}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		for _, child := range children[t.uids[k]] {
			if !t.owned[child] {
				t.owned[child] = true
				queue = append(queue, child)
			}
		}
	}
}

// judgeReady decides owned key k's readiness, once per object version.
func (t *tracker) judgeReady(k string) {
	o := t.objs[k]
	r, ok := t.ready[o]
	if !ok {
		r.ok, r.why = ObjectReady(o, t.overrides)
		t.ready[o] = r
	}
	if r.ok {
		delete(t.notReady, k)
		return
	}
	t.notReady[k] = fmt.Sprintf("%s %s is not ready (%s)", o.GetKind(), k, r.why)
}

// ownerUIDs are the uids o's ownerReferences name.
func ownerUIDs(o *unstructured.Unstructured) []string {
	refs, _, _ := unstructured.NestedSlice(o.Object, "metadata", "ownerReferences")
	var out []string
	for _, r := range refs {
		if m, ok := r.(map[string]any); ok {
			if uid, ok := m["uid"].(string); ok {
				out = append(out, uid)
			}
		}
	}
	return out
}
