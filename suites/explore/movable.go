package explore

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/schedule"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/suites/finalizer"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// heldObject is the object delete-held deletes while another party's
// finalizer holds it.
const heldObject = "alpha"

// movable drives a movable resource: the finalizer suite's fleet, objects
// alpha and beta running on the source cluster, moved to the target by
// move or alpha deleted while held by delete-held. Faults hit the source
// cluster's controller: the two controllers share one identity.
type movable struct {
	spec *testenv.Spec
	f    *finalizer.Fleet
	// mu guards what the workload steps did, on their own goroutines: a
	// schedule moves the objects or deletes one, whichever comes first
	// (a deleting object is not moved).
	mu      sync.Mutex
	began   string // the workload step under way or done
	deleted time.Time
}

func startMovable(ctx context.Context, spec *testenv.Spec, ns string) *movable {
	return &movable{spec: spec, f: finalizer.StartFleet(ctx, spec, ns, heldObject, "beta")}
}

func (d *movable) target() chaos.Target { return d.f.Source }

func (d *movable) limits() schedule.Limits {
	l := schedule.DefaultLimits
	l.Replicas = len(d.f.Source.Replicas)
	if d.f.Source.Etcd == "" {
		l.Without = []string{"etcd-compaction"}
	}
	return l
}

func (d *movable) resource(role string) string {
	if role == "clusters" {
		return d.f.Resource()
	}
	return role
}

func (d *movable) replicas(sel string) []string { return pick(sel, identities(d.f.Source), "") }

func (d *movable) fault(context.Context, schedule.Step) (chaos.Fault, error) { return nil, nil }

func (d *movable) workload(ctx context.Context, st schedule.Step) error {
	if st.Workload != "move" && st.Workload != "delete-held" {
		return fmt.Errorf("%s is not a movable resource's step", st.Workload)
	}
	if err := d.begin(st.Workload); err != nil {
		return err
	}
	if st.Workload == "move" {
		d.f.Move(ctx)
		return nil
	}
	at, err := d.f.DeleteHeld(ctx, heldObject)
	d.mu.Lock()
	d.deleted = at
	d.mu.Unlock()
	return err
}

// begin claims the schedule's one move or held delete for step.
func (d *movable) begin(step string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.began != "" {
		return fmt.Errorf("the schedule did %s already: it moves the objects or deletes one, not both", d.began)
	}
	d.began = step
	return nil
}

func (d *movable) phases() []string { return []string{"running", "moved", "deleting"} }

func (d *movable) phase() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch d.began {
	case "move":
		return "moved"
	case "delete-held":
		return "deleting"
	}
	return "running"
}

// judge: a schedule that neither moved nor deleted moves now. A move is
// judged from the later of the move and the recovery (P1 within 30s, the
// objects run on the target), a held delete likewise (the controller lets
// go of its finalizer within 15s), and both clusters' whole history for
// P2, P3 and P4.
func (d *movable) judge(ctx context.Context, recovered time.Time) {
	if d.begin("move") == nil {
		d.f.Move(ctx)
	}
	checks := []oracle.Check{d.spec.Judged(catalog.FinRanBefore)}
	safety := d.f.SafetyChecks(ctx)
	switch {
	case d.f.Moved():
		checks = append(checks, d.f.MoveChecks(ctx, later(d.f.MovedAt(), recovered))...)
	case d.deleted.IsZero():
		checks = append(checks, oracle.Check{Property: catalog.FinReleased, Run: func() error {
			return fmt.Errorf("%w: the held object could not be deleted (see the step's outcome)", oracle.ErrNotEvaluated)
		}})
	default:
		// P3 is judged once the controller let go, after a quiet spell.
		checks = append(checks, d.f.ReleasedChecks(ctx, heldObject, later(d.deleted, recovered))...)
		safety = slices.DeleteFunc(safety, func(c oracle.Check) bool { return c.Property.ID == catalog.FinP3.ID })
	}
	verify(d.spec, append(checks, safety...)...)
}
