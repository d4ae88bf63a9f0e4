package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/steadystate-dev/steadystate/cluster"
	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/cluster/standing"
	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/internal/config"
)

func clusterCommand(ctx context.Context, cfg config.Settings, args []string, stdout, stderr io.Writer) error {
	cmd := cli.New("cluster", "cluster up|down|status [--name NAME]",
		"up starts a local cluster (etcd, kube-apiserver, kube-controller-manager of KUBE_VERSION)\n"+
			"and keeps it up until Ctrl-C or 'cluster down'; down stops it; status shows whether it\n"+
			"is up and how to reach it.")
	name := cmd.FS.String("name", "steadystate", "the cluster's `NAME`")
	if len(args) > 0 && cli.WantsHelp(args[:1]) {
		return cli.HelpRequest{Text: cmd.Help()}
	}
	if len(args) == 0 {
		return fmt.Errorf("%w: cluster needs up, down or status", errUsage)
	}
	if err := cmd.Parse(args[1:]); err != nil {
		return err
	}
	if cmd.FS.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, cmd.FS.Arg(0))
	}
	switch args[0] {
	case "up":
		return standing.Dir(cfg.StateDir).Up(ctx, *name, cluster.ConfigFrom(cfg), stdout, stderr)
	case "down":
		return standing.Dir(cfg.StateDir).Down(*name, stdout)
	case "status":
		return standing.Dir(cfg.StateDir).Status(*name, stdout)
	default:
		return fmt.Errorf("%w: unknown cluster command %q", errUsage, args[0])
	}
}

// kubeBinsCommand builds the local control plane of KUBE_VERSION from
// source into the cache (as make kube-bins does) and prints its folder.
func kubeBinsCommand(ctx context.Context, cfg config.Settings, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		return fmt.Errorf("%w: kube-bins takes no arguments (KUBE_VERSION picks the version)", errUsage)
	}
	b, err := local.BuildBinaries(ctx, cfg.KubeVersion, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, filepath.Dir(b.APIServer))
	return nil
}
