package chaos

import (
	"context"
	"fmt"
	"maps"
	"time"
)

// ProcessAction is what a ProcessFault does to a replica's process.
type ProcessAction string

// The process actions.
const (
	// Kill sends SIGKILL: no shutdown code runs, a held Lease is not
	// released.
	Kill ProcessAction = "kill"
	// Terminate sends SIGTERM and waits up to Grace before SIGKILL: the
	// graceful shutdown path.
	Terminate ProcessAction = "terminate"
	// Restart terminates and starts the process again.
	Restart ProcessAction = "restart"
)

// ProcessFault acts on a replica's host (see Host): a local process gets
// signals; on a cluster the same faults are pod deletions, grace 0 for a
// kill, a graceful delete (Grace) for a terminate; a pod cannot be
// restarted in place.
type ProcessFault struct {
	Replica string
	Action  ProcessAction
	// Grace bounds Terminate and Restart before SIGKILL. Default 10s.
	Grace time.Duration
}

// Name is process-kill, process-terminate or process-restart.
func (f ProcessFault) Name() string { return "process-" + string(f.Action) }

// StoppedProcess reports whether inj is a ProcessFault's: it stopped the
// process of the replica its Target names (started again by its End for
// a restart), and whatever that process had open went with it.
func (inj Injection) StoppedProcess() bool {
	for _, a := range []ProcessAction{Kill, Terminate, Restart} {
		if inj.Fault == (ProcessFault{Action: a}).Name() {
			return true
		}
	}
	return false
}

// Available needs the replica to have a host, one that can restart in
// place for Restart.
func (f ProcessFault) Available(t Target) error {
	switch f.Action {
	case Kill, Terminate, Restart:
	default:
		return fmt.Errorf("unknown process action %q: use kill, terminate or restart", f.Action)
	}
	r, ok := t.replica(f.Replica)
	if !ok {
		return fmt.Errorf("the subject has no replica %q", f.Replica)
	}
	if r.Host == nil {
		return fmt.Errorf("replica %q is neither a local process nor a pod", f.Replica)
	}
	if _, ok := r.Host.(Restarter); !ok && f.Action == Restart {
		return fmt.Errorf("replica %q (%v) cannot be restarted in place: a pod's Deployment replaces it under a new name; use kill or terminate", f.Replica, r.Host.Where())
	}
	return nil
}

// Inject acts and returns once the controller has exited (and, for
// Restart, started again).
func (f ProcessFault) Inject(ctx context.Context, t Target) (Injection, error) {
	r, _ := t.replica(f.Replica)
	grace := f.Grace
	if grace == 0 {
		grace = 10 * time.Second
	}
	inj := Injection{Target: f.Replica, Start: time.Now(), Detail: r.Host.Where()}
	var (
		more map[string]string
		err  error
	)
	switch f.Action {
	case Kill:
		more, err = r.Host.Kill(ctx)
	case Terminate:
		more, err = r.Host.Terminate(ctx, grace)
	case Restart:
		more, err = r.Host.(Restarter).Restart(ctx, grace)
	}
	maps.Copy(inj.Detail, more)
	inj.End = time.Now()
	if err != nil {
		return inj, fmt.Errorf("%s %s: %w", f.Action, f.Replica, err)
	}
	return inj, nil
}

// Recover has nothing to undo: a killed replica stays down until the
// harness restarts it.
func (ProcessFault) Recover(context.Context, Target) error { return nil }
