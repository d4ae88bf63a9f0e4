package chaos

import (
	"context"
	"fmt"
	"strconv"
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

// ProcessFault acts on the process of a replica that runs locally. On a
// cluster the same faults are pod deletions (grace 0 for a kill).
type ProcessFault struct {
	Replica string
	Action  ProcessAction
	// Grace bounds Terminate and Restart before SIGKILL. Default 10s.
	Grace time.Duration
}

// Name is process-kill, process-terminate or process-restart.
func (f ProcessFault) Name() string { return "process-" + string(f.Action) }

// Available needs the replica to be a local process.
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
	if r.Process == nil {
		return fmt.Errorf("replica %q is not a local process (on a cluster, use pod deletion)", f.Replica)
	}
	return nil
}

// Inject acts and returns once the process has exited (and, for Restart,
// started again).
func (f ProcessFault) Inject(_ context.Context, t Target) (Injection, error) {
	r, _ := t.replica(f.Replica)
	grace := f.Grace
	if grace == 0 {
		grace = 10 * time.Second
	}
	p := r.Process
	inj := Injection{Target: f.Replica, Start: time.Now(), Detail: map[string]string{"pid": strconv.Itoa(p.PID())}}
	var err error
	switch f.Action {
	case Kill:
		p.Kill()
	case Terminate:
		p.Stop(grace)
	case Restart:
		err = p.Restart(grace)
		inj.Detail["newPid"] = strconv.Itoa(p.PID())
	}
	inj.End = time.Now()
	return inj, err
}

// Recover has nothing to undo: a killed replica stays down until the
// harness restarts it.
func (ProcessFault) Recover(context.Context, Target) error { return nil }
