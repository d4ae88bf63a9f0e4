package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/steadystate-dev/steadystate/reference/wiring"
	"github.com/steadystate-dev/steadystate/reference/workload"
)

func runWorkload(ctx context.Context, args []string, stderr io.Writer) error {
	var timeout time.Duration
	o, err := parse("workload", args, stderr, func(fs *flag.FlagSet) {
		fs.DurationVar(&timeout, "expectation-timeout", 5*time.Minute, "how long scale expectations may stay unsatisfied (upstream: 5m)")
	})
	if err != nil {
		return err
	}
	if timeout <= 0 {
		return errors.New("--expectation-timeout must be a positive duration such as 5m")
	}
	mgr, err := wiring.NewManager(o)
	if err != nil {
		return err
	}
	r := &workload.Reconciler{Client: mgr.GetClient(), Expectations: workload.NewExpectations(), Timeout: timeout, Bug: o.Bug}
	if err := r.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("set up the workload controller: %w", err)
	}
	ctrl.Log.Info("starting refctl workload", "identity", o.Identity, "bug", o.Bug, "expectationTimeout", timeout.String())
	return mgr.Start(ctx)
}
