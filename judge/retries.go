package judge

import (
	"slices"
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
)

// OwedRetry is a write of the run (RunWrite) that a fault refused and
// that was, when looked at, its replica's last write of that object: the
// controller's retry of it may still be pending, held by its back-off.
// Until it is due the object can look settled only because the
// controller has not acted again yet, and an end state taken then is one
// the controller was about to change.
type OwedRetry struct {
	Replica string `json:"replica"`
	// Object is the object written: resource (with its group but for the
	// core group), namespace and name, as configmaps/ns/name.
	Object string `json:"object"`
	// Refused is how many writes of the object in a row ended refused or
	// unanswered, this one included; Gap the time between the last two
	// of them (zero for one).
	Refused int           `json:"refused"`
	Gap     time.Duration `json:"gap"`
	// Last is when the last refusal was answered; Due when the retry is
	// to come by (RetryDue).
	Last time.Time `json:"last"`
	Due  time.Time `json:"due"`
	// Retried says the replica wrote the object again (RetriesOwed's wait
	// saw it): the retry came.
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
	backoff := backoffMax
	if refused < 1 {
		refused = 1
	}
	if refused-1 < 32 {
		backoff = min(backoffBase<<(refused-1), backoffMax)
	}
	return last.Add(max(backoff, 2*gap) + RetrySlack)
}

// OwedRetries are the retries owed at at in logs (each replica's
// requests): for each object whose last write of the run a replica
// finished by at was answered by a fault (Request.Fault), the retry that
// write is owed. A write the API server itself refused is not counted: a
// clean run meets those too. Sorted by replica and object.
func OwedRetries(logs map[string][]proxy.Request, ns string, named []string, at time.Time) []OwedRetry {
	var out []OwedRetry
	for id, reqs := range logs {
		writes := map[string][]proxy.Request{}
		for _, r := range reqs {
			if r.End.IsZero() || r.End.After(at) || !RunWrite(r, ns, named...) {
				continue
			}
			k := r.GroupResource() + "/" + r.Namespace + "/" + r.ObjectName()
			writes[k] = append(writes[k], r)
		}
		for k, ws := range writes {
			slices.SortStableFunc(ws, func(a, b proxy.Request) int { return a.Start.Compare(b.Start) })
			last := ws[len(ws)-1]
			if last.Fault == "" {
				continue
			}
			o := OwedRetry{Replica: id, Object: k, Refused: 1, Last: last.End}
			for i := len(ws) - 2; i >= 0 && refused(ws[i]); i-- {
				if o.Refused == 1 {
					o.Gap = last.Start.Sub(ws[i].Start)
				}
				o.Refused++
			}
			o.Due = RetryDue(o.Last, o.Refused, o.Gap)
			out = append(out, o)
		}
	}
	slices.SortFunc(out, func(a, b OwedRetry) int {
		return strings.Compare(a.Replica+" "+a.Object, b.Replica+" "+b.Object)
	})
	return out
}

// refused reports whether a write ended without the API server's
// success: refused (4xx, 5xx), by a fault or by the server, or
// unanswered (the connection reset).
func refused(r proxy.Request) bool { return r.Code < 200 || r.Code >= 300 }

// Pending are those of owed not retried and still due after at.
func Pending(owed []OwedRetry, at time.Time) []OwedRetry {
	return slices.DeleteFunc(slices.Clone(owed), func(o OwedRetry) bool { return o.Retried || !o.Due.After(at) })
}
