package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/steadystate-dev/steadystate/exploration"
	"github.com/steadystate-dev/steadystate/internal/config"
)

// exploreConfigFrom reads an exploration run from the flags and the
// environment, once.
func exploreConfigFrom(e config.Settings, args []string) (exploration.Run, error) {
	var c exploration.Run
	fs := flag.NewFlagSet("explore", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
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
	if err := fs.Parse(args); err != nil {
		return c, fmt.Errorf("%w: explore: %w", errUsage, err)
	}
	var err error
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("%w: explore takes flags only, not %q", errUsage, fs.Arg(0))
	case c.Subject == "":
		return c, fmt.Errorf("%w: explore needs --subject: a reference subject (workload, leader, composite, cluster), a built-in one (replicaset, statefulset) or a subject file", errUsage)
	case c.Repeat < 0:
		return c, fmt.Errorf("--repeat %d: a replay runs at least once", c.Repeat)
	case c.Confirm < 1:
		return c, fmt.Errorf("--confirm %d: a shrink candidate is replayed at least once", c.Confirm)
	case c.Shrink && c.Replay == "":
		return c, fmt.Errorf("%w: --shrink reduces a kept schedule: give it with --replay FILE", errUsage)
	case c.Repeat == 0 && c.Shrink:
		c.Repeat = 10
	case c.Repeat == 0:
		c.Repeat = 1
	}
	if c.Budget, err = time.ParseDuration(*budget); err != nil || c.Budget <= 0 {
		return c, fmt.Errorf("--budget %q is not a duration: use one such as 10m or 90s", *budget)
	}
	c.Seed = uint64(time.Now().UnixNano())
	if *seed != "" {
		if c.Seed, err = strconv.ParseUint(*seed, 10, 64); err != nil {
			return c, fmt.Errorf("--seed %q is not a seed: use the number a previous run printed", *seed)
		}
	}
	err = c.Configure(e)
	return c, err
}

// exploreCommand runs the exploration suite against one subject and
// prints its findings: each with the schedule kept beside its evidence.
func exploreCommand(ctx context.Context, cfg config.Settings, args []string, stdout, stderr io.Writer) error {
	c, err := exploreConfigFrom(cfg, args)
	if err != nil {
		return err
	}
	return c.Run(ctx, stdout, stderr)
}
