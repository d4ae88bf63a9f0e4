package proc

import (
	"context"
	"os/exec"
	"syscall"
	"time"
)

// SuiteStopGrace is how long an interrupted suite process (`steadystate
// suite NAME`, run by the matrix and by make e2e) may take to clean up,
// stop its subject and delete its cluster, before it is killed.
const SuiteStopGrace = 45 * time.Second

// StartGroup starts cmd in a process group of its own, so that a Ctrl-C
// reaches only this process, which passes one SIGINT on (a second would
// cut a Ginkgo suite's cleanup short); its children that set a
// parent-death signal go with it. When ctx ends before cmd exits, the
// group gets SIGINT, and SIGKILL after grace. The returned wait waits for
// cmd, then kills whatever of its group is left behind, and returns cmd's
// exit error.
func StartGroup(ctx context.Context, cmd *exec.Cmd, grace time.Duration) (wait func() error, err error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	group := -cmd.Process.Pid
	exited := make(chan struct{})
	go func() {
		select {
		case <-exited:
		case <-ctx.Done():
			_ = syscall.Kill(group, syscall.SIGINT) // a group already gone needs no signal
			select {
			case <-exited:
			case <-time.After(grace):
				_ = syscall.Kill(group, syscall.SIGKILL)
			}
		}
	}()
	return func() error {
		err := cmd.Wait()
		close(exited)
		_ = syscall.Kill(group, syscall.SIGKILL) // anything of the group left behind (none: ESRCH)
		return err
	}, nil
}
