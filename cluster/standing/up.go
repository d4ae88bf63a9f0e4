package standing

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/steadystate-dev/steadystate/cluster"
	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/internal/cli"
)

// Up starts a local cluster named name of cfg and keeps it up until ctx ends (Ctrl-C,
// SIGTERM, or `cluster down`), then stops it.
func (d Dir) Up(ctx context.Context, name string, cfg cluster.Config, stdout, stderr io.Writer) error {
	if s, err := d.Read(name); err == nil {
		return fmt.Errorf("cluster %q is already up (pid %d): run `steadystate cluster down --name %s` first, or pick another --name", name, s.PID, name)
	}
	if cfg.Provider != "" && cfg.Provider != cluster.Local {
		return cli.Mark(cli.ErrInput, fmt.Errorf("`cluster up` starts local clusters only; PROVIDER=%s is not supported here", cfg.Provider))
	}
	cfg.Progress = stderr
	start := time.Now()
	c, err := local.Start(ctx, cfg.LocalOptions(name))
	if err != nil {
		return err
	}
	defer func() {
		fmt.Fprintf(stderr, "cluster %s: stopping\n", name)
		os.Remove(d.statePath(name))
		if err := c.Stop(); err != nil {
			fmt.Fprintf(stderr, "cluster %s: %v\n", name, err)
		}
		fmt.Fprintf(stderr, "cluster %s: stopped\n", name)
	}()
	if err := d.writeState(State{
		Name: name, PID: os.Getpid(), Kubeconfig: c.Kubeconfig(), Server: c.Server(),
		LogDir: c.LogDir(), Components: c.PIDs(),
	}); err != nil {
		return fmt.Errorf("record cluster state: %w", err)
	}
	fmt.Fprintf(stderr, "cluster %s: up in %s; logs in %s; Ctrl-C or `steadystate cluster down --name %s` stops it\n",
		name, time.Since(start).Round(time.Millisecond), c.LogDir(), name)
	printAccess(stdout, c.Kubeconfig())
	<-ctx.Done()
	return nil
}

func printAccess(w io.Writer, kubeconfig string) {
	fmt.Fprintf(w, "kubeconfig: %s\nexport KUBECONFIG=%s\n", kubeconfig, kubeconfig)
}

// Down asks the `cluster up` process to stop and waits until it has.
func (d Dir) Down(name string, stdout io.Writer) error {
	s, err := d.Read(name)
	if errors.Is(err, ErrNotUp) {
		fmt.Fprintf(stdout, "cluster %s is not up\n", name)
		return nil
	}
	if err != nil {
		return err
	}
	proc, err := os.FindProcess(s.PID)
	if err != nil {
		return err
	}
	if err := proc.Signal(os.Interrupt); err != nil {
		return fmt.Errorf("signal cluster %s (pid %d): %w", name, s.PID, err)
	}
	gone := func(context.Context) (bool, error) { return !isUpProcess(s.PID), nil }
	if err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 60*time.Second, true, gone); err != nil {
		return fmt.Errorf("cluster %s (pid %d) did not stop within 60s; see its logs in %s", name, s.PID, s.LogDir)
	}
	fmt.Fprintf(stdout, "cluster %s stopped\n", name)
	return nil
}

// Status prints whether the cluster name is up, its components and how to
// reach it.
func (d Dir) Status(name string, stdout io.Writer) error {
	s, err := d.Read(name)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "cluster %s is up (pid %d), API server %s\n", name, s.PID, s.Server)
	for component, pid := range s.Components {
		fmt.Fprintf(stdout, "  %-24s pid %d\n", component, pid)
	}
	fmt.Fprintf(stdout, "logs: %s\n", s.LogDir)
	printAccess(stdout, s.Kubeconfig)
	return nil
}
