package judge

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/judge/oracle"
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

// FactLeaderOnly is the subject's leaderOnly binding (LeaderOnly),
// comma-separated; absent when the subject binds none.
var FactLeaderOnly = Fact[Names]{Name: "leaderOnly"}

// LeaderOnly is the set of resources whose writes only the leader may
// make, as the subject file names them: "resource" for the core group,
// else "resource.group", either covering the resource and its
// subresources, or "resource[.group]/subresource" covering that
// subresource only. Empty is the default: every resource but Leases (the
// election itself) and Events.
type LeaderOnly []string

// Covers reports whether r is a leader-only write: a successful write to a
// resource of l.
func (l LeaderOnly) Covers(r proxy.Request) bool {
	if !r.IsWrite() || r.Code < 200 || r.Code > 299 {
		return false
	}
	if len(l) == 0 {
		return r.Resource != "leases" && r.Resource != "events"
	}
	gr := r.GroupResource()
	for _, entry := range l {
		res, sub, hasSub := strings.Cut(entry, "/")
		if res == gr && (!hasSub || sub == r.Subresource) {
			return true
		}
	}
	return false
}

// OnlyHolderWrites checks every leader-only write (of scope, a LeaderOnly)
// in the replicas' proxy logs (requests by replica name) against the
// Lease's history. A replica holds the Lease under its own name or under
// any holder identity its successful Lease writes were answered with: a
// controller that chooses its own identity (controller-runtime's
// hostname_UUID) is judged by what it does, not by a name the harness gave
// it.
func OnlyHolderWrites(lease *oracle.History, key string, scope LeaderOnly, replicas map[string][]proxy.Request) error {
	ts := terms(lease, key)
	owner := HolderOwners(replicas)
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(replicas)) {
		for _, r := range replicas[name] {
			if !scope.Covers(r) {
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
			what := r.GroupResource() + "/" + r.Name
			if r.Name == "" {
				what = "a new " + r.GroupResource() + " object"
			}
			if r.Subresource != "" {
				what += "/" + r.Subresource
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
