package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/steadystate-dev/steadystate/reference/composite"
	"github.com/steadystate-dev/steadystate/reference/external"
	"github.com/steadystate-dev/steadystate/reference/wiring"
)

func runComposite(ctx context.Context, args []string, stderr io.Writer) error {
	var externalURL string
	o, err := parse("composite", args, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&externalURL, "external-url", "", "URL of the external system (refctl external); required")
	})
	if err != nil {
		return err
	}
	if u, err := url.Parse(externalURL); externalURL == "" || err != nil || u.Host == "" {
		return fmt.Errorf("--external-url=%q is not a URL: pass the address of `refctl external`, such as http://127.0.0.1:9090", externalURL)
	}
	mgr, err := wiring.NewManager(o)
	if err != nil {
		return err
	}
	ext := &external.Client{Base: externalURL, HTTP: &http.Client{Timeout: 30 * time.Second}}
	for _, setup := range []interface{ SetupWithManager(ctrl.Manager) error }{
		&composite.ClaimReconciler{Client: mgr.GetClient(), Bug: o.Bug, Namespace: o.WatchNamespace, APIReader: mgr.GetAPIReader()},
		&composite.CompositeReconciler{Client: mgr.GetClient(), Bug: o.Bug, APIReader: mgr.GetAPIReader()},
		&composite.ManagedReconciler{Client: mgr.GetClient(), External: ext, Bug: o.Bug},
	} {
		if err := setup.SetupWithManager(mgr); err != nil {
			return fmt.Errorf("set up the composite controllers: %w", err)
		}
	}
	ctrl.Log.Info("starting refctl composite", "identity", o.Identity, "bug", o.Bug, "external", externalURL)
	return mgr.Start(ctx)
}

func runExternal(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("refctl external", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:9090", "listen address")
	if err := fs.Parse(args); err != nil {
		return err
	}
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", *addr, err)
	}
	srv := &http.Server{Handler: external.NewServer().Handler(), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "external system listening on http://%s\n", l.Addr())
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
