package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/steadystate-dev/steadystate/reference/wiring"
)

// command is one refctl subcommand: it binds its flags, then runs.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stderr io.Writer) error
}

var commands = map[string]command{
	"workload":  {"scalable workload (CloneSet shape)", runWorkload},
	"leader":    {"leader-only work (controller-runtime shape)", runLeader},
	"cluster":   {"pausable, finalized resource (Cluster API shape)", runCluster},
	"move":      {"move Clusters between clusters (clusterctl move shape)", runMove},
	"composite": {"claim -> composite -> managed (Crossplane shape)", runComposite},
	"external":  {"the fake external system composite talks to", runExternal},
	"stack":     {"an operator's stack: owned, applied, uid-named, cluster-scoped and other-namespace children", runStack},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	ctrl.SetLogger(zap.New(zap.UseDevMode(false)))
	if err := dispatch(ctx, os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "refctl: %v\n", err)
		stop()
		os.Exit(2)
	}
}

func dispatch(ctx context.Context, args []string, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage())
		if len(args) == 0 {
			return errors.New("no command given")
		}
		return nil
	}
	cmd, ok := commands[args[0]]
	if !ok {
		return fmt.Errorf("unknown command %q\n%s", args[0], usage())
	}
	return cmd.run(ctx, args[1:], stderr)
}

func usage() string {
	var b strings.Builder
	b.WriteString("usage: refctl <command> [flags]\n\ncommands:\n")
	for _, name := range []string{"workload", "cluster", "move", "composite", "external", "leader", "stack"} {
		if c, ok := commands[name]; ok {
			fmt.Fprintf(&b, "  %-10s %s\n", name, c.summary)
		}
	}
	return b.String()
}

// parse binds the shared options and extra flags, parses args and
// validates; the error names the bad flag and the valid values.
func parse(name string, args []string, stderr io.Writer, extra func(*flag.FlagSet)) (wiring.Options, error) {
	var o wiring.Options
	fs := flag.NewFlagSet("refctl "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	o.Bind(fs, name)
	if extra != nil {
		extra(fs)
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return o, o.Validate(name)
}
