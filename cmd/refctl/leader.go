package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/steadystate-dev/steadystate/reference/leader"
	"github.com/steadystate-dev/steadystate/reference/wiring"
)

func runLeader(ctx context.Context, args []string, stderr io.Writer) error {
	var namespace string
	var heartbeat time.Duration
	o, err := parse("leader", args, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&namespace, "work-namespace", "default", "namespace of the markers, the heartbeat and the leader work")
		fs.DurationVar(&heartbeat, "heartbeat", time.Second, "how often the leader writes its heartbeat")
	})
	if err != nil {
		return err
	}
	if heartbeat <= 0 {
		return errors.New("--heartbeat must be a positive duration such as 1s")
	}
	mgr, err := wiring.NewManager(o)
	if err != nil {
		return err
	}
	// Leader-only work writes with a direct client: it must still work
	// after the manager (and its cache) stopped, which the bugs need.
	direct, err := client.New(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme()})
	if err != nil {
		return err
	}
	work := &leader.Work{Client: direct, Identity: o.Identity, Namespace: namespace, Heartbeat: heartbeat}
	if err := mgr.Add(work); err != nil {
		return err
	}
	if err := (&leader.Reconciler{Client: mgr.GetClient(), Identity: o.Identity}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("set up the leader controller: %w", err)
	}
	ctrl.Log.Info("starting refctl leader", "identity", o.Identity, "bug", o.Bug)
	err = mgr.Start(ctx)

	elected := false
	select {
	case <-mgr.Elected():
		elected = true
	default:
	}
	switch {
	case o.Bug == leader.BugStartOnShutdown && !elected && ctx.Err() != nil:
		// controller-runtime v0.11.0-v0.17.2: StopAndWait started the
		// never-started leader-election group on shutdown, so leader-only
		// runnables ran briefly on a replica that never held the Lease.
		brief, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		work.Mark(brief)
		return err
	case o.Bug == leader.BugIgnoreLostLease && err != nil && strings.Contains(err.Error(), "leader election lost"):
		ctrl.Log.Info("lost the Lease; carrying on with leader-only work", "identity", o.Identity)
		return work.Start(ctx)
	}
	return err
}
