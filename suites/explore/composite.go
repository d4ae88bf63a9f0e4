package explore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/schedule"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/suites/foreground"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// The composite's claims: app, made Ready before the steps, and next, its
// successor for the same external resource (create-claim).
const (
	firstClaim, nextClaim = "app", "next"
	// blockerBound is catalog.FgBlockerNamed's bound.
	blockerBound = 15 * time.Second
	// deletingBy is how long a replaced claim's managed object may take
	// to start deleting before create-claim gives up on its successor.
	deletingBy = 30 * time.Second
)

// composite drives a foreground-deleted composite: the foreground suite's
// composition. From the steady state on, the deletion of what claim app
// owns is held up (the external system the harness runs refuses deletes,
// or the binding's block finalizer holds the owned objects) until the
// judgement lets it through: the subject must say so on the claim
// (properties (a) and (b)) under faults.
type composite struct {
	spec *testenv.Spec
	c    *foreground.Composition
	ns   string
	name string // the external resource's
	// mu guards what the workload steps did, on their own goroutines.
	mu        sync.Mutex
	deleted   time.Time // when app was deleted
	succeeded time.Time // when next was created
}

func startComposite(ctx context.Context, spec *testenv.Spec, ns string) *composite {
	c := foreground.StartComposition(ctx, spec, ns)
	d := &composite{spec: spec, c: c, ns: ns, name: ns + "-db"}
	created := time.Now()
	c.Create(ctx, firstClaim, d.name)
	d.spec.Premise(ctx, catalog.FgReadyBefore, c.Until(testenv.Settle(created), judge.Ready(d.key(firstClaim))))
	judge.FactClaim.Set(d.spec, d.key(firstClaim))
	judge.FactWindow.Set(d.spec, testenv.Current.Window)
	if c.External() != nil {
		judge.FactExternalName.Set(d.spec, d.name)
		judge.FactOldOwner.Set(d.spec, c.ManagedUID(ctx, firstClaim))
	}
	Expect(c.Block(ctx, firstClaim)).To(Succeed(), "hold up the deletion of what %s owns", firstClaim)
	// Never leave the namespace's deletion held up.
	DeferCleanup(func(ctx SpecContext) error { return c.Unblock(ctx) })
	return d
}

func (d *composite) key(claim string) string { return d.ns + "/" + claim }

func (d *composite) target() chaos.Target { return d.c.Target }

// limits leave out concurrent creates: which of them wins is the API
// server's choice, not the subject's. A successor needs an external name
// the harness controls: without the external system, none is made.
func (d *composite) limits() schedule.Limits {
	l := schedule.DefaultLimits
	l.Replicas = len(d.c.Target.Replicas)
	l.Without = []string{"concurrent-create"}
	if d.c.External() == nil {
		l.Without = append(l.Without, "create-claim")
	}
	if d.c.Target.Etcd == "" {
		l.Without = append(l.Without, "etcd-compaction")
	}
	return l
}

func (d *composite) resource(role string) string {
	if role == "claims" {
		return d.c.Resource()
	}
	return role
}

func (d *composite) replicas(sel string) []string { return pick(sel, identities(d.c.Target), "") }

func (d *composite) fault(context.Context, schedule.Step) (chaos.Fault, error) { return nil, nil }

// workload: delete-claim deletes app; create-claim replaces it, deleting
// it and, once its managed object is deleting, creating next for the same
// external resource.
func (d *composite) workload(ctx context.Context, st schedule.Step) error {
	switch st.Workload {
	case "delete-claim":
		return d.deleteFirst(ctx)
	case "create-claim":
		if d.c.External() == nil {
			return errors.New("a successor needs an external name the harness controls: the subject's composite is held up by a block, not backed by the external system")
		}
		if err := d.deleteFirst(ctx); err != nil && !errors.Is(err, errDeletedAlready) {
			return err
		}
		return d.succeed(ctx)
	}
	return fmt.Errorf("%s is not a foreground-deleted composite's step", st.Workload)
}

var errDeletedAlready = errors.New("app is deleted already")

func (d *composite) deleteFirst(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.deleted.IsZero() {
		return errDeletedAlready
	}
	d.c.Delete(ctx, firstClaim)
	d.deleted = time.Now()
	judge.FactDeleted.Set(d.spec, d.deleted)
	return nil
}

func (d *composite) succeed(ctx context.Context) error {
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, deletingBy, true, func(context.Context) (bool, error) {
		return d.c.ManagedDeleting(firstClaim), nil
	}); err != nil {
		return fmt.Errorf("the managed object of %s was not deleting within %s: no successor made", firstClaim, deletingBy)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.succeeded.IsZero() {
		return errors.New("next is made already")
	}
	d.succeeded = d.c.Succeed(ctx, firstClaim, nextClaim, d.name)
	return nil
}

func (d *composite) phases() []string { return []string{"ready", "deleting", "replaced"} }

func (d *composite) phase() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case !d.succeeded.IsZero():
		return "replaced"
	case !d.deleted.IsZero():
		return "deleting"
	}
	return "ready"
}

// judge: a schedule that deleted nothing deletes app now. What the
// subject owes from the delete it owes from the later of the delete and
// the recovery (a subject cut off cannot write): the blocker named within
// 15s, Deleting shown within 5s until the claim is gone. Then the
// deletion is let through: the deletion completes within T, and
// a successor is Ready, owning the external resource, within T, with no
// delete of it by the old claim's managed object after it used it.
func (d *composite) judge(ctx context.Context, recovered time.Time) {
	judge.FactHealthyFrom.Set(d.spec, recovered)
	if err := d.deleteFirst(ctx); err != nil && !errors.Is(err, errDeletedAlready) {
		Fail(err.Error())
	}
	owed := later(d.deleted, recovered)
	key := d.key(firstClaim)
	checks := []oracle.Check{d.spec.Judged(catalog.FgReadyBefore), d.blocked(ctx)}
	if msg := d.c.BlockerMessage(firstClaim); msg != "" {
		checks = append(checks, d.spec.Converges(ctx, catalog.FgBlockerNamed, func() judge.Bound {
			return d.c.Until(testenv.Within(owed, blockerBound), judge.ReadyNames(key, msg))
		}, ""))
	} else {
		d.spec.NotBound(catalog.FgBlockerNamed, "the subject binds no capabilities.foregroundComposite.blockerMessage")
	}
	var released time.Time
	checks = append(checks,
		d.spec.Converges(ctx, catalog.FgDeletionCompletes, func() judge.Bound {
			// Held until (a) has had its 5s and W from when it is owed.
			until(ctx, owed.Add(judge.DeletingWithin+testenv.Current.Window+time.Second))
			Expect(d.c.Unblock(ctx)).To(Succeed(), "let the deletion through")
			released = time.Now()
			return d.c.Until(testenv.Settle(released), judge.Gone(key))
		}, ""),
		d.spec.Judged(catalog.FgDeletingStatus),
	)
	if !d.succeeded.IsZero() {
		// The successor cannot be Ready before its predecessor is gone,
		// which the held deletes keep from it until the release.
		checks = append(checks, d.c.SuccessorChecks(ctx, firstClaim, nextClaim, func() time.Time { return later(released, d.succeeded) })...)
	}
	verify(d.spec, checks...)
}

// blocked is the premise foreground/deletion-blocked: the deletion
// reached what was held (the external system refused a delete, or a held
// object was marked deleting) within 15s.
func (d *composite) blocked(ctx context.Context) oracle.Check {
	premise := d.spec.Judged(catalog.FgDeletionBlocked)
	return oracle.Check{Property: catalog.FgDeletionBlocked, Run: func() error {
		var blocked error
		if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, blockerBound, true, func(context.Context) (bool, error) {
			blocked = premise.Run()
			return blocked == nil, nil
		}); err != nil {
			return fmt.Errorf("within %s: %w", blockerBound, blocked)
		}
		return nil
	}}
}

// later is the later of two moments.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
