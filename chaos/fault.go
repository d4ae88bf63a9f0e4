package chaos

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
)

// Fault is one kind of failure.
type Fault interface {
	// Name identifies the fault in timelines and reports.
	Name() string
	// Available returns nil when the fault can act on t, else why not.
	Available(t Target) error
	// Inject applies the fault. A fault with a duration holds it that long
	// before returning; one without stays active until Recover.
	Inject(ctx context.Context, t Target) (Injection, error)
	// Recover undoes whatever the fault left active. It is idempotent.
	Recover(ctx context.Context, t Target) error
}

// Target is what faults act on: the cluster and the subject's replicas.
type Target struct {
	Kube    kubernetes.Interface
	Dynamic dynamic.Interface
	// Replicas of the subject under test.
	Replicas []Replica
	// Etcd is the etcd client URL where the harness can reach storage
	// (the local provider), empty elsewhere.
	Etcd string
}

// Replica is one instance of the subject.
type Replica struct {
	// Identity is the replica's name; a Lease holder identity maps to it
	// by Target.Holding.
	Identity string
	// Proxy drives the fault proxy in front of the replica; nil when the
	// replica talks to the API server directly.
	Proxy proxy.Controller
	// Host is where the replica's controller runs, what process faults
	// act on: a local process or a pod; nil when the harness cannot act
	// on it.
	Host Host
}

// Requests are the replica's requests its proxy logged, in the order they
// started; none for a replica without a proxy.
func (r Replica) Requests() []proxy.Request {
	if r.Proxy == nil {
		return nil
	}
	return r.Proxy.Requests()
}

// RequestMarks is, for each replica with a proxy, the ID before its first
// request begun after since: RequestsAfter(mark) holds every request
// begun after it. A request gets its ID just after its start time is
// taken, so IDs and start times may disagree by a moment between
// requests begun together; the mark is before both.
func (t Target) RequestMarks(since time.Time) map[proxy.Controller]uint64 {
	marks := map[proxy.Controller]uint64{}
	for _, r := range t.Replicas {
		if r.Proxy == nil {
			continue
		}
		var mark uint64
		for _, req := range r.Proxy.Requests() {
			if req.Start.After(since) {
				break
			}
			mark = req.ID
		}
		marks[r.Proxy] = mark
	}
	return marks
}

// replica finds a replica by identity.
func (t Target) replica(identity string) (Replica, bool) {
	for _, r := range t.Replicas {
		if r.Identity == identity {
			return r, true
		}
	}
	return Replica{}, false
}

// Holding finds the replica that holds a Lease as holder: the replica of
// that name, or the one whose proxy saw a successful Lease write answered
// with that holder (a controller that picks its own identity, as
// controller-runtime managers do, is known by its traffic).
func (t Target) Holding(holder string) (Replica, bool) {
	if r, ok := t.replica(holder); ok || holder == "" {
		return r, ok
	}
	for _, r := range t.Replicas {
		for _, req := range r.Requests() {
			if req.Holder == holder && req.Resource == "leases" {
				return r, true
			}
		}
	}
	return Replica{}, false
}

// Injection records one fault on the timeline.
type Injection struct {
	Fault string `json:"fault"`
	// Target names what was hit: replicas, objects.
	Target string    `json:"target,omitempty"`
	Start  time.Time `json:"start"`
	// End is when the fault stopped acting: when it was recovered, or the
	// same as Start for an instantaneous fault.
	End time.Time `json:"end"`
	// Detail holds what the fault measured or chose (deleted pods, the
	// failover time, the compacted revision).
	Detail map[string]string `json:"detail,omitempty"`
	// Error is why the injection or its recovery failed, if it did: a
	// premise judged from the timeline reads it.
	Error string `json:"error,omitempty"`
}

// ErrUnavailable marks a fault refused because it cannot act on the target.
var ErrUnavailable = errors.New("fault not available")

func unavailable(f Fault, err error) error {
	return fmt.Errorf("%w: %s: %v", ErrUnavailable, f.Name(), err)
}

// Inject checks that f is available, injects it, recovers it, and records
// it on tl. Recovery runs even when ctx is cancelled or Inject panics.
func Inject(ctx context.Context, tl *Timeline, f Fault, t Target) (inj Injection, err error) {
	if err := f.Available(t); err != nil {
		return Injection{}, unavailable(f, err)
	}
	defer func() {
		if rerr := f.Recover(context.WithoutCancel(ctx), t); rerr != nil {
			err = errors.Join(err, fmt.Errorf("recover %s: %w", f.Name(), rerr))
		}
		if inj.End.IsZero() {
			inj.End = time.Now()
		}
		if err != nil {
			inj.Error = err.Error()
		}
		tl.Add(inj)
	}()
	tl.started(f.Name())
	inj, err = f.Inject(ctx, t)
	inj.Fault = f.Name()
	return inj, err
}

// Active is a fault that stays injected until End.
type Active struct {
	tl    *Timeline
	fault Fault
	t     Target
	inj   Injection
	ended bool
}

// Begin injects f and leaves it active; the caller must call End (with
// defer, or Ginkgo's DeferCleanup) to recover it.
func Begin(ctx context.Context, tl *Timeline, f Fault, t Target) (*Active, error) {
	if err := f.Available(t); err != nil {
		return nil, unavailable(f, err)
	}
	tl.started(f.Name())
	inj, err := f.Inject(ctx, t)
	inj.Fault = f.Name()
	a := &Active{tl: tl, fault: f, t: t, inj: inj}
	if err != nil {
		a.inj.Error = err.Error()
		return nil, errors.Join(err, a.End(ctx))
	}
	return a, nil
}

// End recovers the fault and records it. It is safe to call twice.
func (a *Active) End(ctx context.Context) error {
	if a.ended {
		return nil
	}
	a.ended = true
	err := a.fault.Recover(context.WithoutCancel(ctx), a.t)
	a.inj.End = time.Now()
	if err != nil && a.inj.Error == "" {
		a.inj.Error = "recover: " + err.Error()
	}
	a.tl.Add(a.inj)
	return err
}

// Injection is the record so far; End is zero while the fault is active.
func (a *Active) Injection() Injection { return a.inj }
