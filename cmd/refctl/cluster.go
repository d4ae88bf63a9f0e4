package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/steadystate-dev/steadystate/judge/catalog"
	"github.com/steadystate-dev/steadystate/reference/capi"
	"github.com/steadystate-dev/steadystate/reference/mover"
	"github.com/steadystate-dev/steadystate/reference/wiring"
)

func runCluster(ctx context.Context, args []string, stderr io.Writer) error {
	o, err := parse("cluster", args, stderr, nil)
	if err != nil {
		return err
	}
	mgr, err := wiring.NewManager(o)
	if err != nil {
		return err
	}
	if err := (&capi.Reconciler{Client: mgr.GetClient(), Bug: o.Bug}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("set up the cluster controller: %w", err)
	}
	ctrl.Log.Info("starting refctl cluster", "identity", o.Identity, "bug", o.Bug)
	return mgr.Start(ctx)
}

// runMove is a one-shot command, not a controller: it has its own flags.
func runMove(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("refctl move", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from-kubeconfig", "", "kubeconfig of the source cluster (required)")
	to := fs.String("to-kubeconfig", "", "kubeconfig of the target cluster (required)")
	ns := fs.String("namespace", "default", "namespace whose Clusters move")
	bug := fs.String("bug", "", "seeded bug: "+mover.BugStripThenDelete)
	delay := fs.Duration("step-delay", 0, "wait between the requests that delete a source object (stands for API latency)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := catalog.ValidateBug("move", *bug); err != nil {
		return err
	}
	if *from == "" || *to == "" {
		return errors.New("--from-kubeconfig and --to-kubeconfig are required")
	}
	if *delay < 0 {
		return errors.New("--step-delay must not be negative")
	}
	clients := make([]client.Client, 2)
	for i, path := range []string{*from, *to} {
		c, err := wiring.Client(path)
		if err != nil {
			return err
		}
		clients[i] = c
	}
	start := time.Now()
	names, err := mover.Move(ctx, mover.Options{From: clients[0], To: clients[1], Namespace: *ns, Bug: *bug, StepDelay: *delay, Log: os.Stdout})
	if err != nil {
		return err
	}
	fmt.Printf("moved %v in %s\n", names, time.Since(start).Round(time.Millisecond))
	return nil
}
