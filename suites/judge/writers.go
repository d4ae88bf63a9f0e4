package judge

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/suites/oracle"
)

// ErrTwoWriters is the safety property of leader election.
var ErrTwoWriters = errors.New("only the replica holding a valid Lease may write")

// term is one state of the Lease: who held it, and until when it was valid.
type term struct {
	holder       string
	renew, until time.Time
}

// terms reads every recorded state of the Lease.
func terms(h *oracle.History, key string) []term {
	var out []term
	h.Replay(func(_ time.Time, s oracle.State) {
		obj := s[key]
		if obj == nil {
			return
		}
		holder, _, _ := unstructured.NestedString(obj.Object, "spec", "holderIdentity")
		renewRaw, _, _ := unstructured.NestedString(obj.Object, "spec", "renewTime")
		seconds, _, _ := unstructured.NestedInt64(obj.Object, "spec", "leaseDurationSeconds")
		renew, err := time.Parse(time.RFC3339Nano, renewRaw)
		if err != nil {
			return
		}
		t := term{holder: holder, renew: renew, until: renew.Add(time.Duration(seconds) * time.Second)}
		if len(out) == 0 || out[len(out)-1] != t {
			out = append(out, t)
		}
	})
	return out
}

// validHolder is the replica holding a valid Lease at t, or "".
func validHolder(ts []term, t time.Time) string {
	holder := ""
	for _, term := range ts {
		if term.renew.After(t) {
			break
		}
		holder = ""
		if !t.After(term.until) {
			holder = term.holder
		}
	}
	return holder
}

var writeVerbs = []string{"create", "update", "patch", "delete", "deletecollection"}

// LeaderOnlyWrite is a successful write other than to Leases (the
// election itself) and Events.
func LeaderOnlyWrite(r proxy.Request) bool {
	return slices.Contains(writeVerbs, r.Verb) && r.Code >= 200 && r.Code <= 299 && r.Resource != "leases" && r.Resource != "events"
}

// OnlyHolderWrites checks every successful write in the replicas' proxy
// logs (requests by replica name) against the Lease's history. Writes to
// Leases (the election itself) and Events are not leader-only work. A
// replica holds the Lease under its own name or under any holder identity
// its successful Lease writes were answered with: a controller that
// chooses its own identity (controller-runtime's hostname_UUID) is judged
// by what it does, not by a name the harness gave it.
func OnlyHolderWrites(lease *oracle.History, key string, replicas map[string][]proxy.Request) error {
	ts := terms(lease, key)
	owner := HolderOwners(replicas)
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(replicas)) {
		for _, r := range replicas[name] {
			if !LeaderOnlyWrite(r) {
				continue
			}
			h := validHolder(ts, r.Start)
			if h != "" && owner(h) == name {
				continue
			}
			who := "nobody"
			if h != "" {
				who = owner(h)
				if who != h {
					who += " (" + h + ")"
				}
			}
			what := r.Resource + "/" + r.Name
			if r.Name == "" {
				what = "a new " + r.Resource + " object"
			}
			errs = append(errs, oracle.BrokeAt(r.Start, fmt.Errorf("%w: %s made %s %s at %s while %s held the Lease",
				ErrTwoWriters, name, r.Verb, what, r.Start.Format("15:04:05.000"), who)))
		}
	}
	return errors.Join(errs...)
}

// HolderOwners maps a Lease holder identity to the replica that holds the
// Lease under it: the replica whose successful Lease writes were answered
// with that holder, else the replica of that name. An identity no replica
// claims maps to itself.
func HolderOwners(replicas map[string][]proxy.Request) func(holder string) string {
	learned := map[string]string{}
	for name, reqs := range replicas {
		for _, r := range reqs {
			if r.Holder != "" && r.Resource == "leases" {
				learned[r.Holder] = name
			}
		}
	}
	return func(holder string) string {
		if name, ok := learned[holder]; ok {
			return name
		}
		return holder
	}
}
