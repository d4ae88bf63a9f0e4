package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/steadystate-dev/steadystate/reference/stack"
	"github.com/steadystate-dev/steadystate/reference/wiring"
)

func runStack(ctx context.Context, args []string, stderr io.Writer) error {
	o, err := parse("stack", args, stderr, func(fs *flag.FlagSet) {
		// One process by default, as the reconcile suite runs it:
		// leader election only when asked for.
		f := fs.Lookup("leader-elect")
		f.DefValue = "false"
		_ = f.Value.Set("false")
	})
	if err != nil {
		return err
	}
	mgr, err := wiring.NewManager(o)
	if err != nil {
		return err
	}
	if err := stack.New(mgr, o.Bug, o.WatchNamespace).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("set up the stack controller: %w", err)
	}
	// Once, at start, as an operator checks its permissions: advisory
	// when the check itself fails, refused when it says no.
	allowed, reason, err := stack.CheckAccess(ctx, mgr.GetClient(), o.WatchNamespace)
	switch {
	case err != nil:
		ctrl.Log.Error(err, "could not check the permission to update Stacks; starting anyway")
	case !allowed:
		return fmt.Errorf("not allowed to update Stacks in namespace %q (%s): grant the refctl ClusterRole (fixtures/reference/rbac)", o.WatchNamespace, reason)
	}
	ctrl.Log.Info("starting refctl stack", "identity", o.Identity, "bug", o.Bug, "namespace", o.WatchNamespace)
	return mgr.Start(ctx)
}
