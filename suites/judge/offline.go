package judge

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/catalog"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/evidence"
	"github.com/steadystate-dev/steadystate/suites/oracle"
)

// The facts and the names of histories and logs the offline judges read.
const (
	// FactWorkload is the workload's key (ns/name), FactReplicasPath the
	// dotted path of its desired replicas; histories HistoryWorkload and
	// HistoryPods.
	FactWorkload     = "workload"
	FactReplicasPath = "replicasPath"
	HistoryWorkload  = "workload"
	HistoryPods      = "pods"
	// FactReplica is the replica whose proxy a premise is read from;
	// FactLostPod the pod whose events it must not have had;
	// FactInjectError the fault injection's error, if any.
	FactReplica     = "replica"
	FactLostPod     = "lostPod"
	FactInjectError = "injectError"
	// FactLease is the Lease's key; history HistoryLease.
	FactLease    = "lease"
	HistoryLease = "lease"
	// FactClaim is the claim's key, FactDeleted when it was deleted,
	// FactWindow the W in force; history HistoryClaims.
	FactClaim     = "claim"
	FactDeleted   = "deleted"
	FactWindow    = "window"
	HistoryClaims = "claims"
	// FactExternalName is the external resource's name, FactOldOwner and
	// FactNewOwner the Managed uids; log LogExternal.
	FactExternalName = "externalName"
	FactOldOwner     = "oldOwner"
	FactNewOwner     = "newOwner"
	LogExternal      = "external"
	// FactClusters lists the clusters (comma-separated) whose histories
	// "<cluster>/clusters" and "<cluster>/cleanups" P2 and P4 read;
	// FactFinalizer is the controller's finalizer, FactCleanupUIDLabel the
	// label naming the Cluster a cleanup record is for, FactResource the
	// resource P3 watches in the proxy logs.
	FactClusters        = "clusters"
	FactFinalizer       = "finalizer"
	FactCleanupUIDLabel = "cleanupUIDLabel"
	FactResource        = "resource"
)

// Offline is every property that can be judged from evidence alone, by
// id. The suites judge these properties through it too.
var Offline = map[string]func(e *evidence.Evidence) error{
	catalog.EvidenceComplete.ID: complete,
	catalog.LostEventWithheld.ID: func(e *evidence.Evidence) error {
		replica, pod, err := facts2(e, FactReplica, FactLostPod)
		if err != nil {
			return err
		}
		if msg := e.Facts[FactInjectError]; msg != "" {
			return errors.New(msg)
		}
		p, ok := e.Proxies[replica]
		if !ok {
			return fmt.Errorf("%w: proxy log of %s: %w", oracle.ErrNotEvaluated, replica, evidence.ErrMissing)
		}
		return Withheld(p.Events, pod)
	},
	catalog.LostNoOvershoot.ID: func(e *evidence.Evidence) error {
		key, path, err := facts2(e, FactWorkload, FactReplicasPath)
		if err != nil {
			return err
		}
		w, p, err := histories2(e, HistoryWorkload, HistoryPods)
		if err != nil {
			return err
		}
		return NoOvershoot(w.Events(), p.Events(), SpecReplicas(key, path))
	},
	catalog.LeaderOneWriter.ID: func(e *evidence.Evidence) error {
		key, err := e.Fact(FactLease)
		if err != nil {
			return unjudged(err)
		}
		lease, err := e.History(HistoryLease)
		if err != nil {
			return unjudged(err)
		}
		return OnlyHolderWrites(lease, key, requests(e))
	},
	catalog.FgDeletingStatus.ID: func(e *evidence.Evidence) error {
		key, err := e.Fact(FactClaim)
		if err != nil {
			return unjudged(err)
		}
		deleted, err := e.Time(FactDeleted)
		if err != nil {
			return unjudged(err)
		}
		window, err := time.ParseDuration(e.Facts[FactWindow])
		if err != nil {
			return unjudged(fmt.Errorf("fact %q: %w", FactWindow, err))
		}
		h, err := e.History(HistoryClaims)
		if err != nil {
			return unjudged(err)
		}
		return DeletingStatus(h, key, deleted, window, e.End)
	},
	catalog.FgDeletionBlocked.ID: func(e *evidence.Evidence) error {
		var ops []Op
		name, err := e.Fact(FactExternalName)
		if err == nil {
			err = e.Log(LogExternal, &ops)
		}
		if err != nil {
			return unjudged(err)
		}
		return DeletionBlocked(ops, name)
	},
	catalog.FgNoDeleteInUse.ID: func(e *evidence.Evidence) error {
		var ops []Op
		name, err := e.Fact(FactExternalName)
		if err == nil {
			err = e.Log(LogExternal, &ops)
		}
		if err != nil {
			return unjudged(err)
		}
		old, now, err := facts2(e, FactOldOwner, FactNewOwner)
		if err != nil {
			return err
		}
		return NoDeleteInUse(ops, name, old, now)
	},
	catalog.FinP2.ID: func(e *evidence.Evidence) error {
		return eachCluster(e, func(c string) error {
			fin, err := e.Fact(FactFinalizer)
			if err != nil {
				return unjudged(err)
			}
			h, err := e.History(c + "/clusters")
			if err != nil {
				return unjudged(err)
			}
			_, err = NoneStuck(h, e.End, fin, c)
			return err
		})
	},
	catalog.FinP3.ID: func(e *evidence.Evidence) error {
		res, err := e.Fact(FactResource)
		if err != nil {
			return unjudged(err)
		}
		var errs []error
		for _, id := range sortedKeys(e.Proxies) {
			errs = append(errs, No422(e.Proxies[id].Requests, res))
		}
		return errors.Join(errs...)
	},
	catalog.FinP4.ID: func(e *evidence.Evidence) error {
		return eachCluster(e, func(c string) error {
			label, err := e.Fact(FactCleanupUIDLabel)
			if err != nil {
				return unjudged(err)
			}
			clusters, cleanups, err := histories2(e, c+"/clusters", c+"/cleanups")
			if err != nil {
				return err
			}
			return NoCleanupWhilePaused(clusters.Events(), cleanups.Events(), label, c)
		})
	},
}

// Withheld is the lost-events premise: the re-watch was answered 410
// Expired by the proxy, and the replica never got an event for the pod.
func Withheld(events []proxy.Event, pod string) error {
	if !slices.ContainsFunc(events, func(e proxy.Event) bool { return e.Type == "ERROR" && e.Code == 410 && e.Fault != "" }) {
		return errors.New("the proxy recorded no 410 Expired answer to a re-watch")
	}
	if i := slices.IndexFunc(events, func(e proxy.Event) bool { return e.Name == pod && e.Delivered }); i >= 0 {
		return fmt.Errorf("the subject got %s pod/%s at %s: the lost create was not hidden", events[i].Type, pod, events[i].At.Format("15:04:05.000"))
	}
	return nil
}

// complete is nil when every history of the evidence is complete and
// every replica's proxy could read every watch it carried.
func complete(e *evidence.Evidence) error {
	var errs []error
	for _, name := range sortedKeys(e.Incomplete) {
		errs = append(errs, fmt.Errorf("%s: %s", name, e.Incomplete[name]))
	}
	for _, id := range sortedKeys(e.Proxies) {
		if i := slices.IndexFunc(e.Proxies[id].Requests, func(r proxy.Request) bool { return r.Fault == proxy.RefusedEncoding }); i >= 0 {
			r := e.Proxies[id].Requests[i]
			errs = append(errs, fmt.Errorf("the proxy of %s refused its %s watch of %s: the stream's encoding cannot be faulted or recorded (see the request's answer)", id, r.Resource, r.Start.Format("15:04:05.000")))
		}
	}
	return errors.Join(errs...)
}

func unjudged(err error) error { return fmt.Errorf("%w: %w", oracle.ErrNotEvaluated, err) }

func facts2(e *evidence.Evidence, a, b string) (string, string, error) {
	x, err := e.Fact(a)
	if err != nil {
		return "", "", unjudged(err)
	}
	y, err := e.Fact(b)
	if err != nil {
		return "", "", unjudged(err)
	}
	return x, y, nil
}

func histories2(e *evidence.Evidence, a, b string) (*oracle.History, *oracle.History, error) {
	x, err := e.History(a)
	if err != nil {
		return nil, nil, unjudged(err)
	}
	y, err := e.History(b)
	if err != nil {
		return nil, nil, unjudged(err)
	}
	return x, y, nil
}

func eachCluster(e *evidence.Evidence, judge func(cluster string) error) error {
	list, err := e.Fact(FactClusters)
	if err != nil {
		return unjudged(err)
	}
	var errs []error
	for _, c := range strings.Split(list, ",") {
		errs = append(errs, judge(c))
	}
	return errors.Join(errs...)
}

func requests(e *evidence.Evidence) map[string][]proxy.Request {
	out := map[string][]proxy.Request{}
	for id, p := range e.Proxies {
		out[id] = p.Requests
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
