package judge

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/evidence"
	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// The facts of the premises the harness's own steps prove: when the
// successor claim was created, and the mover's end (FactMoved, with
// FactMoverError when it failed; FactMoverBackError when the move back
// failed).
var (
	FactSuccessorCreated = Fact[time.Time]{Name: "successorCreated"}
	FactMoved            = Fact[time.Time]{Name: "moved"}
	FactMoverError       = Fact[string]{Name: "moverError"}
	FactMoverBackError   = Fact[string]{Name: "moverBackError"}
)

// HistoryManageds is the Manageds' history.
const HistoryManageds = "manageds"

// Injected is the premise that a fault acted: the evidence's timeline has
// an injection of the named fault, and none of them failed. It returns
// them for the premise's further checks. Evidence with no fault at all
// (no timeline) leaves the premise not evaluated.
func Injected(faults []chaos.Injection, fault string) ([]chaos.Injection, error) {
	if len(faults) == 0 {
		return nil, fmt.Errorf("%w: the evidence records no fault (%s was to be injected)", oracle.ErrNotEvaluated, fault)
	}
	var out []chaos.Injection
	for _, inj := range faults {
		if inj.Fault != fault {
			continue
		}
		if inj.Error != "" {
			return nil, fmt.Errorf("%s at %s failed: %s", fault, inj.Start.Format("15:04:05.000"), inj.Error)
		}
		out = append(out, inj)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the timeline has no %s", fault)
	}
	return out, nil
}

// injected is Injected as a premise's judge.
func injected(fault string) Judge {
	return func(e *evidence.Evidence) error {
		_, err := Injected(e.Faults, fault)
		return err
	}
}

// stormHappened: every pod deletion of the storm acted, and deleted pods.
func stormHappened(e *evidence.Evidence) error {
	injs, err := Injected(e.Faults, chaos.PodDeletion{}.Name())
	if err != nil {
		return err
	}
	for _, inj := range injs {
		if inj.Detail["deleted"] != "" {
			return nil
		}
	}
	return fmt.Errorf("%d pod deletions deleted no pod", len(injs))
}

// partitioned: the leader was partitioned, and while it was, another
// holder took the Lease (as the Lease's history shows at the heal).
func partitioned(e *evidence.Evidence) error {
	r := read(e)
	key, h := get(r, FactLease), r.history(HistoryLease)
	if err := r.missing(); err != nil {
		return err
	}
	injs, err := Injected(e.Faults, chaos.Partition("", true, 0).Name())
	if err != nil {
		return err
	}
	for _, inj := range injs {
		before, after := h.StateAt(inj.Start)[key], h.StateAt(inj.End)[key]
		if before == nil || after == nil {
			return fmt.Errorf("the Lease %s was not recorded through the partition", key)
		}
		old, _ := lease(before)
		if now, _ := lease(after); now == old || now == "" {
			return fmt.Errorf("no other replica took the Lease from %q while it was partitioned (%s): held by %q when it healed", old, inj.End.Sub(inj.Start).Round(time.Millisecond), now)
		}
	}
	return nil
}

// FactLeaseDuration and FactRetryPeriod are the leader election's timings
// as the subject file declares them (durations): the failover bound is
// made of them.
var (
	FactLeaseDuration = Fact[time.Duration]{Name: "leaseDuration"}
	FactRetryPeriod   = Fact[time.Duration]{Name: "retryPeriod"}
)

// failover judges leader/failover-in-time: its recorded bound over the
// Lease's history, once the declared lease duration (of which the bound
// is made) agrees with the one the recorded Lease carries when the bound
// starts. A subject file that disagrees with its own Lease leaves the
// property not evaluated: the bound would be wrong.
func failover(e *evidence.Evidence) error {
	r := read(e)
	key, declared, b := get(r, FactLease), get(r, FactLeaseDuration), r.bound(catalog.LeaderFailover.ID)
	h := r.history(HistoryLease)
	if err := r.missing(); err != nil {
		return err
	}
	if err := LeaseDurationAgrees(h.StateAt(b.Since)[key], key, declared); err != nil {
		return err
	}
	_, _, err := judgeBound(e, catalog.LeaderFailover.ID)
	return err
}

// LeaseDurationAgrees checks the declared lease duration against a
// recorded Lease's spec.leaseDurationSeconds (whole seconds, as client-go
// writes it): not evaluated, naming both, when they differ or the Lease
// was not recorded.
func LeaseDurationAgrees(obj *unstructured.Unstructured, key string, declared time.Duration) error {
	if obj == nil {
		return fmt.Errorf("%w: the Lease %s was not recorded when the failover bound started", oracle.ErrNotEvaluated, key)
	}
	seconds, found, err := unstructured.NestedInt64(obj.Object, "spec", "leaseDurationSeconds")
	if err != nil || !found {
		return fmt.Errorf("%w: the recorded Lease %s has no spec.leaseDurationSeconds to check the declared leaseDuration %s against", oracle.ErrNotEvaluated, key, declared)
	}
	if int64(declared/time.Second) != seconds {
		return fmt.Errorf("%w: capabilities.leaderElected.leaseDuration is %s but the recorded Lease %s says spec.leaseDurationSeconds %d: the failover bound made of it would be wrong (declare the manager's own lease duration)", oracle.ErrNotEvaluated, declared, key, seconds)
	}
	return nil
}

// oneCreateWins: the concurrent creates ran, and exactly one won.
func oneCreateWins(e *evidence.Evidence) error {
	injs, err := Injected(e.Faults, (&chaos.ConcurrentCreate{}).Name())
	if err != nil {
		return err
	}
	for _, inj := range injs {
		total := 0
		for _, v := range inj.Detail {
			n, _ := strconv.Atoi(v)
			total += n
		}
		if won := inj.Detail["created"]; won != "1" {
			return fmt.Errorf("the API server let %s of %d creates of %s win (%v)", orZero(won), total, inj.Target, inj.Detail)
		}
	}
	return nil
}

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

// oldDeleting: when the successor was created, its predecessor's claim
// and Managed object were both there and deleting.
func oldDeleting(e *evidence.Evidence) error {
	r := read(e)
	key, created := get(r, FactClaim), get(r, FactSuccessorCreated)
	claims, manageds := r.history(HistoryClaims), r.history(HistoryManageds)
	if err := r.missing(); err != nil {
		return err
	}
	for _, h := range []struct {
		what string
		h    *oracle.History
	}{{"claim", claims}, {"Managed object", manageds}} {
		if obj := h.h.StateAt(created)[key]; obj == nil || obj.GetDeletionTimestamp() == nil {
			return fmt.Errorf("the old %s %s was not deleting when its successor was created at %s (present: %v)", h.what, key, created.Format("15:04:05.000"), obj != nil)
		}
	}
	return nil
}

// moverRan: the harness started the mover and it ran to its exit
// (FactMoved). A mover the API server refused the controller's finalizer
// (FinalizerRefused) ran too: that refusal is P3's evidence, not the
// harness's failure. A mover that failed otherwise did not move, for
// reasons nothing attributes to the subject.
func moverRan(e *evidence.Evidence) error {
	r := read(e)
	get(r, FactMoved)
	if err := r.missing(); err != nil {
		return err
	}
	if msg, failed := FactMoverError.Lookup(e); failed && !strings.Contains(msg, FinalizerRefused) {
		return fmt.Errorf("the mover failed, and not on the API server's finalizer refusal: %s", strings.TrimSpace(msg))
	}
	return nil
}

// moverStopped is why a property of the move's outcome cannot be judged:
// the mover stopped on the API server's refusal (FactMoverError), so the
// move is half done and owes nothing of a finished one. Nil when the
// mover finished.
func moverStopped(e *evidence.Evidence, id string) error {
	msg, failed := FactMoverError.Lookup(e)
	if !failed {
		return nil
	}
	return fmt.Errorf("%w: the mover stopped before the move was done (%s; P3 judges the refusal): %s judges a finished move", oracle.ErrNotEvaluated, strings.TrimSpace(msg), id)
}

// afterMove is the offline judge of a convergence counted from the mover's
// end (P1, runs-after-move): not evaluated when the mover stopped.
func afterMove(id string) Judge {
	return func(e *evidence.Evidence) error {
		if err := moverStopped(e, id); err != nil {
			return err
		}
		return converges(id)(e)
	}
}

// successorReady: the successor converged within its bound, and when the
// window after it ended, the external system's log had the external
// resource owned by the successor's Managed object.
func successorReady(e *evidence.Evidence) error {
	b, res, err := judgeBound(e, catalog.FgSuccessorReady.ID)
	if err != nil {
		return err
	}
	r := read(e)
	name, owner, ops := get(r, FactExternalName), get(r, FactNewOwner), r.ops()
	if err := r.missing(); err != nil {
		return err
	}
	at := res.At.Add(b.Window)
	if got := OwnerAt(ops, name, at); got != owner {
		return oracle.BrokeAt(at, fmt.Errorf("%w: the new claim is Ready but external resource %s is owned by %q at %s, not by the new Managed object %q", oracle.ErrNotConverged, name, got, at.Format("15:04:05.000"), owner))
	}
	return nil
}

// OwnerAt is the owner of the external resource name at t, replaying the
// external system's log: who created it last, "" when it is deleted.
func OwnerAt(ops []Op, name string, t time.Time) string {
	owner := ""
	for _, op := range ops {
		if op.Name != name || op.Result != "ok" || op.At.After(t) {
			continue
		}
		switch op.Op {
		case "create":
			owner = op.Owner
		case "delete":
			owner = ""
		}
	}
	return owner
}
