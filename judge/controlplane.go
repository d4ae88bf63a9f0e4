package judge

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// The control plane suite's histories: the ReplicaSets and pods of its
// namespace, its ConfigMaps (the garbage collector's owner and
// dependents).
const (
	HistoryReplicaSets = "replicasets"
	HistoryConfigMaps  = "configmaps"
)

// FactGCOwner and FactGCHeld are the keys of the garbage collector's owner
// and its held dependent.
var (
	FactGCOwner = Fact[string]{Name: "gcOwner"}
	FactGCHeld  = Fact[string]{Name: "gcHeld"}
)

// replicaSetConverged judges a ReplicaSet's convergence property id: its
// recorded Bound (status.replicas equal to spec.replicas for the current
// generation) and, once that held for W, as many live pods as
// spec.replicas, each controlled by the ReplicaSet: a status the pods
// contradict is not convergence.
func replicaSetConverged(id string) Judge {
	return func(e *evidence.Evidence) error {
		b, res, err := judgeBound(e, id)
		if err != nil {
			return err
		}
		r := read(e)
		rsh, pods := r.history(b.History), r.history(HistoryPods)
		if err := r.missing(); err != nil {
			return err
		}
		if len(b.Want.Keys) == 0 {
			return fmt.Errorf("%w: fact %q names no ReplicaSet", oracle.ErrNotEvaluated, FactConvergence(id))
		}
		at := res.At.Add(b.Window)
		rs := rsh.StateAt(at)[b.Want.Keys[0]]
		if rs == nil {
			return oracle.BrokeAt(at, fmt.Errorf("%s is gone", b.Want.Keys[0]))
		}
		want, err := intAt(rs, "spec.replicas")
		if err != nil {
			return fmt.Errorf("%w: %w", oracle.ErrNotEvaluated, err)
		}
		var live, stray []string
		state := pods.StateAt(at)
		for _, k := range slices.Sorted(maps.Keys(state)) {
			p := state[k]
			if p.GetDeletionTimestamp() != nil {
				continue
			}
			owner := metav1.GetControllerOfNoCopy(p)
			if owner == nil || owner.UID != rs.GetUID() {
				stray = append(stray, k)
				continue
			}
			live = append(live, k)
		}
		switch {
		case len(stray) > 0:
			return oracle.BrokeAt(at, fmt.Errorf("pods %v are not controlled by %s", stray, b.Want.Keys[0]))
		case int64(len(live)) != want:
			return oracle.BrokeAt(at, fmt.Errorf("status.replicas is %d, but %d live pods exist (%v)", want, len(live), live))
		}
		return nil
	}
}

// gcHoldsOwner judges controlplane/gc-holds-owner: the owner's free
// dependents are gone within the recorded Bound and, once they stayed
// gone for W, the owner is still there, deleting with the
// foregroundDeletion finalizer, and the dependent that blocks it is
// deleting.
func gcHoldsOwner(e *evidence.Evidence) error {
	b, res, err := judgeBound(e, catalog.CPGCHoldsOwner.ID)
	if err != nil {
		return err
	}
	r := read(e)
	owner, held, h := get(r, FactGCOwner), get(r, FactGCHeld), r.history(HistoryConfigMaps)
	if err := r.missing(); err != nil {
		return err
	}
	// Once the free dependents stayed gone for W: the garbage collector
	// marks the blocking one deleting in the same pass.
	at := res.At.Add(b.Window)
	s := h.StateAt(at)
	o, d := s[owner], s[held]
	switch {
	case o == nil:
		return oracle.BrokeAt(at, fmt.Errorf("the owner %s is gone while its blocking dependent %s remains", owner, held))
	case o.GetDeletionTimestamp() == nil:
		return oracle.BrokeAt(at, fmt.Errorf("the owner %s is not deleting", owner))
	case !slices.Contains(o.GetFinalizers(), metav1.FinalizerDeleteDependents):
		return oracle.BrokeAt(at, fmt.Errorf("the owner %s has finalizers %v, not %s", owner, o.GetFinalizers(), metav1.FinalizerDeleteDependents))
	case d == nil:
		return oracle.BrokeAt(at, fmt.Errorf("the held dependent %s is gone, though a finalizer held it", held))
	case d.GetDeletionTimestamp() == nil:
		return oracle.BrokeAt(at, errors.New("the held dependent "+held+" is not deleting"))
	}
	return nil
}
