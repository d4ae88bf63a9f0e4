package main

import (
	"context"
	"fmt"
	"io"

	"github.com/steadystate-dev/steadystate/internal/cli"
	"github.com/steadystate-dev/steadystate/internal/config"
	"github.com/steadystate-dev/steadystate/runs/exploration"
)

// exploreConfigFrom reads an exploration run from the flags and the
// environment, once.
func exploreConfigFrom(e config.Settings, args []string) (exploration.Run, error) {
	var c exploration.Run
	cmd := cli.New("explore", "explore --subject NAME|FILE [--bug BUG] [--budget 10m] [--seed N] [--capability C] [--first] [--parallel N [--shared-cluster]] [--pattern P]\n"+
		"       steadystate explore --subject NAME|FILE --replay SCHEDULE.yaml [--repeat N] [--shrink [--confirm N]]",
		"Run seeded random fault schedules against a subject and keep each schedule that breaks a\n"+
			"property beside its evidence; or replay one schedule, and shrink it to a smallest one that\n"+
			"breaks the same properties. See docs/exploration.md.")
	fs := cmd.FS
	fs.StringVar(&c.Subject, "subject", "", "a reference subject (workload, leader, composite, cluster), a built-in one (replicaset, statefulset) or a subject file")
	fs.StringVar(&c.Bug, "bug", "", "a seeded bug of the reference subject")
	fs.StringVar(&c.Capability, "capability", "", "the capability to explore (default: the subject's)")
	budget := fs.String("budget", "10m", "how long new schedules may start")
	seed := fs.String("seed", "", "the run's seed (default: from the clock; printed)")
	fs.StringVar(&c.Replay, "replay", "", "a schedule file to run again instead of drawing schedules")
	fs.IntVar(&c.Repeat, "repeat", 0, "how many times --replay runs the schedule (default 1); after --shrink, the shrunk one and each it walks back to (default 10)")
	fs.IntVar(&c.Confirm, "confirm", 2, "how many replays in a row a --shrink candidate must break to count")
	fs.BoolVar(&c.First, "first", false, "stop at the first finding")
	fs.BoolVar(&c.Shrink, "shrink", false, "reduce the --replay schedule to a smallest one that breaks the same properties")
	fs.IntVar(&c.Parallel, "parallel", 0, "run the drawn schedules in `N` suite processes side by side, a cluster each (local only; not with --first or --replay)")
	fs.BoolVar(&c.SharedCluster, "shared-cluster", false, "the --parallel processes share one cluster, each schedule's subject confined to its namespace (reconciledObjects only)")
	fs.StringVar(&c.Pattern, "pattern", "", "draw every schedule in `P`: unobserved, crash, any, or refused-once (writes refused once each, drawn only when asked for); default: the mix of the first three")
	if err := cmd.Parse(args); err != nil {
		return c, err
	}
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("%w: explore takes flags only, not %q", errUsage, fs.Arg(0))
	case c.Subject == "":
		return c, fmt.Errorf("%w: explore needs --subject: a reference subject (workload, leader, composite, cluster), a built-in one (replicaset, statefulset) or a subject file", errUsage)
	}
	if err := c.SetOptions(*budget, *seed); err != nil {
		return c, err
	}
	err := c.Configure(e)
	return c, err
}

// exploreCommand runs the exploration suite against one subject and
// prints its findings: each with the schedule kept beside its evidence.
func exploreCommand(ctx context.Context, cfg config.Settings, args []string, stdout, stderr io.Writer) error {
	c, err := exploreConfigFrom(cfg, args)
	if err != nil {
		return cli.Mark(cli.ErrInput, err)
	}
	return c.Run(ctx, stdout, stderr)
}
