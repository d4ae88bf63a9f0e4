package judge

import (
	"maps"
	"slices"
	"time"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
)

// OwedRetry is a write of the run (RunWrite) that a fault refused and
// that was, when looked at, the last write of its object by any replica:
// the controller's retry of it may still be pending, held by its back-off.
// Until it is due the object can look settled only because the
// controller has not acted again yet, and an end state taken then is one
// the controller was about to change.
type OwedRetry struct {
	// Replica made the refused write.
	Replica string `json:"replica"`
	// Object is what was written: resource (with its group but for the
	// core group), namespace ("" for a cluster-scoped object), name and,
	// for a subresource, its name, as configmaps/ns/name or
	// jobsets.jobset.x-k8s.io/ns/name/status.
	Object string `json:"object"`
	// Refused is how many writes of the object in a row that replica had
	// refused or unanswered, this one included (the API server's own
	// refusals count too: the back-off does not tell them apart); Gap the
	// time between the last two of them (zero for one).
	Refused int           `json:"refused"`
	Gap     time.Duration `json:"gap"`
	// Last is when the last refusal was answered; Due when the retry is
	// to come by (RetryDue).
	Last time.Time `json:"last"`
	Due  time.Time `json:"due"`
	// Retried says the object was written again (RetryWait saw it): the
	// retry came.
	Retried bool `json:"retried,omitempty"`
}

// RetrySlack is how much later than its back-off predicts a retry may
// come: the controller's queue and its reads before it writes again.
const RetrySlack = time.Second

// Client-go's workqueue rate limiter, which controller-runtime uses too
// (DefaultTypedControllerRateLimiter): a key's n-th failure in a row is
// retried after backoffBase·2^(n-1), at most backoffMax.
const (
	backoffBase = 5 * time.Millisecond
	backoffMax  = 1000 * time.Second
)

// RetryDue is when a controller retries a write after refused writes of
// an object in a row, the last answered at last, gap after the one
// before it: by the later of client-go's exponential back-off for that
// many failures (14 in a row wait 41 s: the gaps between them say
// nothing of it when events, not the back-off, brought them) and twice
// the last gap (a back-off of its own, a fixed requeue interval), plus
// RetrySlack.
func RetryDue(last time.Time, refused int, gap time.Duration) time.Time {
	return last.Add(max(backoff(refused), 2*gap) + RetrySlack)
}

// backoff is client-go's back-off after the n-th failure in a row (n at
// least 1): backoffBase·2^(n-1), at most backoffMax.
func backoff(n int) time.Duration {
	n = max(n, 1)
	if n-1 >= 32 {
		return backoffMax
	}
	return min(backoffBase<<(n-1), backoffMax)
}

// OwedRetries are the retries owed at at in logs (each replica's
// requests): for each object whose last write of the run finished by at,
// by any replica, was answered by an injected fault (Request.Fault), the
// retry that write is owed. Not counted: a write the API server itself
// refused last (a clean run meets those too), one a sealed proxy refused
// (its process is gone and retries nothing), and one that names no
// object (a create refused before the API server named what it made: its
// retry cannot be told apart). Sorted by object.
func OwedRetries(logs map[string][]proxy.Request, ns string, named []string, at time.Time) []OwedRetry {
	writes := map[string][]proxy.Request{}
	for id, reqs := range logs {
		for _, r := range reqs {
			if r.End.IsZero() || r.End.After(at) || r.ObjectName() == "" || !RunWrite(r, ns, named...) {
				continue
			}
			r.Replica = id
			k := writtenObject(r)
			writes[k] = append(writes[k], r)
		}
	}
	var out []OwedRetry
	for _, k := range slices.Sorted(maps.Keys(writes)) {
		ws := writes[k]
		slices.SortStableFunc(ws, func(a, b proxy.Request) int { return a.Start.Compare(b.Start) })
		last := ws[len(ws)-1]
		if last.Fault == "" || last.Fault == proxy.SealedFault {
			continue
		}
		o := OwedRetry{Replica: last.Replica, Object: k, Refused: 1, Last: last.End}
		// Back to the last success, of any replica: the refusals in a
		// row of the replica that made the last.
		for i := len(ws) - 2; i >= 0 && refused(ws[i]); i-- {
			if ws[i].Replica != last.Replica {
				continue
			}
			if o.Refused == 1 {
				o.Gap = last.Start.Sub(ws[i].Start)
			}
			o.Refused++
		}
		o.Due = RetryDue(o.Last, o.Refused, o.Gap)
		out = append(out, o)
	}
	return out
}

// writtenObject names the object r wrote as OwedRetry.Object does.
func writtenObject(r proxy.Request) string {
	k := r.GroupResource() + "/" + r.Namespace + "/" + r.ObjectName()
	if r.Subresource != "" {
		k += "/" + r.Subresource
	}
	return k
}

// refused reports whether a write ended without the API server's
// success: refused (4xx, 5xx), by a fault or by the server, or
// unanswered (the connection reset).
func refused(r proxy.Request) bool { return r.Code < 200 || r.Code >= 300 }

// Pending are those of owed not retried and still due after at.
func Pending(owed []OwedRetry, at time.Time) []OwedRetry {
	return slices.DeleteFunc(slices.Clone(owed), func(o OwedRetry) bool { return o.Retried || !o.Due.After(at) })
}

// RetryWait follows the retries owed over successive looks at the proxy
// logs, until none is pending: each retry that held it, as last seen,
// marked Retried once its object was written again.
type RetryWait struct {
	held map[string]OwedRetry
}

// Look takes the retries owed now (OwedRetries at now) and reports
// whether none is pending.
func (w *RetryWait) Look(owed []OwedRetry, now time.Time) bool {
	if w.held == nil {
		w.held = map[string]OwedRetry{}
	}
	for k, o := range w.held {
		// Retried: no longer owed, or owed for a later refusal.
		o.Retried = !slices.ContainsFunc(owed, func(n OwedRetry) bool { return n.Object == o.Object && n.Last.Equal(o.Last) })
		w.held[k] = o
	}
	pending := Pending(owed, now)
	for _, o := range pending {
		w.held[o.Object] = o
	}
	return len(pending) == 0
}

// Held are the retries that held the wait, sorted by object; none when
// none was pending at any look.
func (w *RetryWait) Held() []OwedRetry {
	out := make([]OwedRetry, 0, len(w.held))
	for _, k := range slices.Sorted(maps.Keys(w.held)) {
		out = append(out, w.held[k])
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// ReAdd is a write that came when a re-add, left in the controller's work
// queue by writes of its object refused in a row, was due. Client-go's
// workqueue, which controller-runtime's is built on, keeps the
// rate-limited add a failure scheduled even after a later sync of the key
// succeeds: Forget resets the key's failures, it does not take back an add
// already waiting. So the key is synced once more at the last failure's
// back-off, with nothing owed and nothing changed since; a controller
// that writes on every sync writes then, and that write is the fault's
// recovery, not its steady state.
type ReAdd struct {
	// Object is the object written, as OwedRetry.Object names it.
	Object string `json:"object"`
	// Refused is how many writes of it the replica had refused in a row,
	// the last answered at Last, by an injected fault.
	Refused int       `json:"refused"`
	Last    time.Time `json:"last"`
	// Failure is the failure in a row (1 to Refused) whose back-off the
	// write's time matched, and Due when that back-off ended.
	Failure int       `json:"failure"`
	Due     time.Time `json:"due"`
}

// ReAddOf reports whether w, a write of a replica whose requests are
// reqs, is the write a re-add brought (ReAdd): w started within
// RetrySlack after Last plus the back-off of the k-th failure in a row,
// for some k up to Refused, of a chain of writes of w's object by that
// replica refused in a row, the last by an injected fault, all answered
// before w began; and w is the replica's first write of the object since
// then. One sync may make several writes (an apply, then its fallback),
// so the k-th failure need not be the k-th refused write: every k the
// chain's length allows is tried, and the intervals they give are a
// second wide each, doubling apart. A write of a run's object only
// (RunWrite in ns, or of the cluster-scoped resources named).
func ReAddOf(reqs []proxy.Request, w proxy.Request, ns string, named []string) (ReAdd, bool) {
	if w.ObjectName() == "" || !RunWrite(w, ns, named...) {
		return ReAdd{}, false
	}
	object := writtenObject(w)
	var writes []proxy.Request
	for _, r := range reqs {
		if r.End.IsZero() || r.ObjectName() == "" || !RunWrite(r, ns, named...) || writtenObject(r) != object {
			continue
		}
		writes = append(writes, r)
	}
	slices.SortStableFunc(writes, func(a, b proxy.Request) int { return a.Start.Compare(b.Start) })
	// firstSince reports whether no write of the object but w started
	// from t to w's start.
	firstSince := func(t time.Time) bool {
		return !slices.ContainsFunc(writes, func(r proxy.Request) bool {
			return r.ID != w.ID && !r.Start.Before(t) && r.Start.Before(w.Start)
		})
	}
	var chains [][]proxy.Request
	var chain []proxy.Request
	for _, r := range writes {
		if !r.Start.Before(w.Start) {
			break
		}
		if refused(r) {
			chain = append(chain, r)
			continue
		}
		if len(chain) > 0 {
			chains = append(chains, chain)
		}
		chain = nil
	}
	if len(chain) > 0 {
		chains = append(chains, chain)
	}
	for _, c := range chains {
		last := c[len(c)-1]
		if last.Fault == "" || last.Fault == proxy.SealedFault || !last.End.Before(w.Start) {
			continue
		}
		for k := 1; k <= min(len(c), 32); k++ {
			due := last.End.Add(backoff(k))
			if w.Start.Before(due) || w.Start.After(due.Add(RetrySlack)) || !firstSince(due) {
				continue
			}
			return ReAdd{Object: object, Refused: len(c), Last: last.End, Failure: k, Due: due}, true
		}
	}
	return ReAdd{}, false
}
