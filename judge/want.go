package judge

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// Want is the state a convergence waits for, as data: the evidence keeps
// it with the convergence's bound, and the live check and the offline
// judge build the same oracle.Match from it.
type Want struct {
	Kind string            `json:"kind"`
	Keys []string          `json:"keys,omitempty"`
	Args map[string]string `json:"args,omitempty"`
	// All are the wants of an "all" want, which holds when each does.
	All []Want `json:"all,omitempty"`
}

// The kinds of Want.
const (
	wantReplicas  = "replicas"
	wantReady     = "ready"
	wantNames     = "ready-message-names"
	wantGone      = "gone"
	wantEmpty     = "empty"
	wantRunning   = "running"
	wantReleased  = "finalizer-released"
	wantTakenOver = "lease-taken-over"
	wantRenewed   = "lease-renewed-after"
	wantAll       = "all"
	wantWorkload  = "replicas-and-pods"
)

// Replicas wants workload key's observed replicas (statusPath) equal to its
// desired replicas (specPath), for its current generation when
// generationPath is set.
func Replicas(key, specPath, statusPath, generationPath string) Want {
	return Want{Kind: wantReplicas, Keys: []string{key}, Args: map[string]string{"spec": specPath, "status": statusPath, "generation": generationPath}}
}

// ReplicasAndPods wants Replicas and, counted from the objects
// themselves, as many live pods in the history pods as the desired
// replicas: a status that claims convergence the pods contradict is not
// convergence. The pods history is joined to the workload's
// (oracle.Join); a live pod is one not being deleted nor finished (phase
// Succeeded or Failed). The pods recorded are the workload's: the ones
// in its namespace that the harness did not start.
func ReplicasAndPods(key, specPath, statusPath, generationPath, pods string) Want {
	return Want{Kind: wantWorkload, Keys: []string{key}, Args: map[string]string{"spec": specPath, "status": statusPath, "generation": generationPath, "pods": pods}}
}

// Histories are the histories other than its bound's own that w reads
// (joined to it as oracle.Join does), in order.
func (w Want) Histories() []string {
	var out []string
	if w.Kind == wantWorkload && w.Args["pods"] != "" {
		out = append(out, w.Args["pods"])
	}
	for _, sub := range w.All {
		for _, h := range sub.Histories() {
			if !slices.Contains(out, h) {
				out = append(out, h)
			}
		}
	}
	return out
}

// Ready wants the claim key to show Ready=True.
func Ready(key string) Want { return Want{Kind: wantReady, Keys: []string{key}} }

// ReadyNames wants the claim key's Ready message to contain text.
func ReadyNames(key, text string) Want {
	return Want{Kind: wantNames, Keys: []string{key}, Args: map[string]string{"text": text}}
}

// Gone wants the object key gone.
func Gone(key string) Want { return Want{Kind: wantGone, Keys: []string{key}} }

// Empty wants no object at all.
func Empty() Want { return Want{Kind: wantEmpty} }

// Running wants every key present, unpaused (the flag at pausedPath), not
// deleting and carrying finalizer.
func Running(finalizer, pausedPath string, keys ...string) Want {
	return Want{Kind: wantRunning, Keys: keys, Args: map[string]string{"finalizer": finalizer, "pausedPath": pausedPath}}
}

// Released wants the object key deleting and without finalizer.
func Released(key, finalizer string) Want {
	return Want{Kind: wantReleased, Keys: []string{key}, Args: map[string]string{"finalizer": finalizer}}
}

// TakenOver wants the Lease key held by someone other than its holder in
// before, with one more leaseTransitions.
func TakenOver(key string, before *unstructured.Unstructured) Want {
	holder, transitions := "", int64(0)
	if before != nil {
		holder, transitions = lease(before)
	}
	return Want{Kind: wantTakenOver, Keys: []string{key}, Args: map[string]string{"holder": holder, "transitions": strconv.FormatInt(transitions, 10)}}
}

// RenewedAfter wants the Lease key held, acquired or renewed after t (its
// spec.renewTime later than t): a replica alive after t holds it. Exploration
// judges a failover with it, once every fault is recovered: a killed
// holder may be restarted under its old identity, and several faults may
// move the Lease more than once.
func RenewedAfter(key string, t time.Time) Want {
	return Want{Kind: wantRenewed, Keys: []string{key}, Args: map[string]string{"after": t.Format(time.RFC3339Nano)}}
}

// All wants every one of ws.
func All(ws ...Want) Want { return Want{Kind: wantAll, All: ws} }

// Match builds the match. A want it cannot build (an unknown kind, a key
// or an argument missing) is an error naming what is wrong.
func (w Want) Match() (oracle.Match, error) {
	key := ""
	if len(w.Keys) > 0 {
		key = w.Keys[0]
	}
	needs := map[string]int{wantReplicas: 1, wantWorkload: 1, wantReady: 1, wantNames: 1, wantGone: 1, wantReleased: 1, wantTakenOver: 1, wantRenewed: 1, wantRunning: 1}
	if n, ok := needs[w.Kind]; ok && len(w.Keys) < n {
		return nil, fmt.Errorf("want %q names no object", w.Kind)
	}
	arg := func(name string) string { return w.Args[name] }
	switch w.Kind {
	case wantReplicas:
		return replicasConverged(key, arg("spec"), arg("status"), arg("generation")), nil
	case wantWorkload:
		if arg("pods") == "" {
			return nil, fmt.Errorf("want %q names no pods history", w.Kind)
		}
		return podsConverged(key, arg("spec"), arg("pods"), replicasConverged(key, arg("spec"), arg("status"), arg("generation"))), nil
	case wantReady:
		return func(s oracle.State) (bool, string) {
			status, reason, msg, _, _ := ClaimReady(s, key)
			return status == "True", "Ready=" + status + " " + reason + " " + msg
		}, nil
	case wantNames:
		return func(s oracle.State) (bool, string) {
			_, _, got, _, _ := ClaimReady(s, key)
			return strings.Contains(got, arg("text")), fmt.Sprintf("Ready message %q does not name %s", got, arg("text"))
		}, nil
	case wantGone:
		return func(s oracle.State) (bool, string) { return s[key] == nil, key + " still exists" }, nil
	case wantEmpty:
		return func(s oracle.State) (bool, string) {
			for _, k := range slices.Sorted(maps.Keys(s)) {
				obj := s[k]
				return false, fmt.Sprintf("%s is still there (deleting=%v finalizers=%v)", k, obj.GetDeletionTimestamp() != nil, obj.GetFinalizers())
			}
			return true, ""
		}, nil
	case wantRunning:
		return running(w.Keys, arg("finalizer"), arg("pausedPath")), nil
	case wantReleased:
		return func(s oracle.State) (bool, string) {
			obj := s[key]
			return obj != nil && obj.GetDeletionTimestamp() != nil && !slices.Contains(obj.GetFinalizers(), arg("finalizer")), "the controller's finalizer is still there"
		}, nil
	case wantTakenOver:
		before, err := strconv.ParseInt(arg("transitions"), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("want %q: transitions %q: %w", w.Kind, arg("transitions"), err)
		}
		return takenOver(key, arg("holder"), before), nil
	case wantRenewed:
		after, err := time.Parse(time.RFC3339Nano, arg("after"))
		if err != nil {
			return nil, fmt.Errorf("want %q: after %q: %w", w.Kind, arg("after"), err)
		}
		return renewedAfter(key, after), nil
	case wantAll:
		var ms []oracle.Match
		for _, sub := range w.All {
			m, err := sub.Match()
			if err != nil {
				return nil, err
			}
			ms = append(ms, m)
		}
		return func(s oracle.State) (bool, string) {
			for _, m := range ms {
				if ok, why := m(s); !ok {
					return false, why
				}
			}
			return true, ""
		}, nil
	}
	return nil, fmt.Errorf("want %q is not a kind this steadystate knows (a newer one wrote the evidence?)", w.Kind)
}

func running(keys []string, finalizer, pausedPath string) oracle.Match {
	return func(s oracle.State) (bool, string) {
		for _, k := range keys {
			obj := s[k]
			if obj == nil {
				return false, k + " is missing"
			}
			if p := paused(obj, pausedPath); p || !slices.Contains(obj.GetFinalizers(), finalizer) || obj.GetDeletionTimestamp() != nil {
				return false, fmt.Sprintf("%s: paused=%v finalizers=%v deleting=%v", k, p, obj.GetFinalizers(), obj.GetDeletionTimestamp() != nil)
			}
		}
		return true, ""
	}
}

func takenOver(key, old string, before int64) oracle.Match {
	return func(s oracle.State) (bool, string) {
		obj := s[key]
		if obj == nil {
			return false, "the Lease does not exist"
		}
		holder, transitions := lease(obj)
		if holder == "" || holder == old || transitions != before+1 {
			return false, fmt.Sprintf("held by %q with leaseTransitions %d (before the fault: %q, %d)", holder, transitions, old, before)
		}
		return true, ""
	}
}

func renewedAfter(key string, after time.Time) oracle.Match {
	return func(s oracle.State) (bool, string) {
		obj := s[key]
		if obj == nil {
			return false, "the Lease does not exist"
		}
		holder, _ := lease(obj)
		raw, _, _ := unstructured.NestedString(obj.Object, "spec", "renewTime")
		renewed, err := time.Parse(time.RFC3339Nano, raw)
		if holder == "" || err != nil || !renewed.After(after) {
			return false, fmt.Sprintf("held by %q, last renewed %q, not after the holder was killed at %s", holder, raw, after.Format("15:04:05.000"))
		}
		return true, ""
	}
}

// lease reads a Lease's holder and its transitions (0 when unset).
func lease(obj *unstructured.Unstructured) (holder string, transitions int64) {
	holder, _, _ = unstructured.NestedString(obj.Object, "spec", "holderIdentity")
	if n, err := intAt(obj, "spec.leaseTransitions"); err == nil {
		transitions = n
	}
	return holder, transitions
}

// LeaseHolder is a recorded Lease's holder identity, "" when it has none
// or obj is nil.
func LeaseHolder(obj *unstructured.Unstructured) string {
	if obj == nil {
		return ""
	}
	holder, _ := lease(obj)
	return holder
}
