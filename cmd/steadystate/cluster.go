package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/steadystate-dev/steadystate/cluster"
	"github.com/steadystate-dev/steadystate/cluster/local"
)

func clusterCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cmd := newCommand("cluster", "cluster up|down|status [--name NAME]",
		"up starts a local cluster (etcd, kube-apiserver, kube-controller-manager of KUBE_VERSION)\n"+
			"and keeps it up until Ctrl-C or 'cluster down'; down stops it; status shows whether it\n"+
			"is up and how to reach it.")
	name := cmd.fs.String("name", "steadystate", "the cluster's `NAME`")
	if len(args) > 0 && wantsHelp(args[:1]) {
		return helpRequest{cmd.help()}
	}
	if len(args) == 0 {
		return fmt.Errorf("%w: cluster needs up, down or status", errUsage)
	}
	if err := cmd.parse(args[1:]); err != nil {
		return err
	}
	if cmd.fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, cmd.fs.Arg(0))
	}
	switch args[0] {
	case "up":
		return clusterUp(ctx, *name, stdout, stderr)
	case "down":
		return clusterDown(*name, stdout)
	case "status":
		return clusterStatus(*name, stdout)
	default:
		return fmt.Errorf("%w: unknown cluster command %q", errUsage, args[0])
	}
}

// clusterUp starts a local cluster and keeps it up until ctx ends (Ctrl-C,
// SIGTERM, or `cluster down`), then stops it.
func clusterUp(ctx context.Context, name string, stdout, stderr io.Writer) error {
	if s, err := readState(name); err == nil {
		return fmt.Errorf("cluster %q is already up (pid %d): run `steadystate cluster down --name %s` first, or pick another --name", name, s.PID, name)
	}
	cfg := cluster.ConfigFromEnv()
	if cfg.Provider != "" && cfg.Provider != cluster.Local {
		return fmt.Errorf("`cluster up` starts local clusters only; PROVIDER=%s is not supported here", cfg.Provider)
	}
	cfg.Progress = stderr
	start := time.Now()
	c, err := local.Start(ctx, cfg.LocalOptions(name))
	if err != nil {
		return err
	}
	defer func() {
		fmt.Fprintf(stderr, "cluster %s: stopping\n", name)
		os.Remove(statePath(name))
		if err := c.Stop(); err != nil {
			fmt.Fprintf(stderr, "cluster %s: %v\n", name, err)
		}
		fmt.Fprintf(stderr, "cluster %s: stopped\n", name)
	}()
	if err := writeState(state{
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

// clusterDown asks the `cluster up` process to stop and waits until it has.
func clusterDown(name string, stdout io.Writer) error {
	s, err := readState(name)
	if errors.Is(err, errNotUp) {
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
	deadline := time.Now().Add(60 * time.Second)
	for isUpProcess(s.PID) {
		if time.Now().After(deadline) {
			return fmt.Errorf("cluster %s (pid %d) did not stop within 60s; see its logs in %s", name, s.PID, s.LogDir)
		}
		time.Sleep(100 * time.Millisecond)
	}
	fmt.Fprintf(stdout, "cluster %s stopped\n", name)
	return nil
}

func clusterStatus(name string, stdout io.Writer) error {
	s, err := readState(name)
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

// kubeBinsCommand builds the local control plane of KUBE_VERSION from
// source into the cache (as make kube-bins does) and prints its folder.
func kubeBinsCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		return fmt.Errorf("%w: kube-bins takes no arguments (KUBE_VERSION picks the version)", errUsage)
	}
	b, err := local.BuildBinaries(ctx, env().KubeVersion, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, filepath.Dir(b.APIServer))
	return nil
}
