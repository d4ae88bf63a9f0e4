package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/client-go/rest"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "faultproxy:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("faultproxy", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:6444", "where the controller reaches the proxy")
	control := fs.String("control", ":8090", "where the control API listens (reached through the pod proxy subresource)")
	out := fs.String("kubeconfig-out", "/shared/kubeconfig", "kubeconfig for the controller, pointing at the proxy")
	replica := fs.String("replica", os.Getenv("POD_NAME"), "identity recorded with every request (default $POD_NAME)")
	linger := fs.Duration("linger", 5*time.Second, "how long to keep answering after SIGTERM")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *replica == "" {
		return errors.New("--replica (or POD_NAME from the downward API) must name the replica")
	}
	upstream, err := rest.InClusterConfig()
	if err != nil {
		return fmt.Errorf("the proxy reaches the API server with the pod's service account: %w", err)
	}
	p, err := proxy.Start(proxy.Options{Upstream: upstream, Replica: *replica, Addr: *listen})
	if err != nil {
		return err
	}
	defer p.Close()
	if err := p.WriteKubeconfig(*out); err != nil {
		return err
	}
	srv := &http.Server{Addr: *control, Handler: proxy.Handler(p), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.ListenAndServe() }()
	log.Printf("faultproxy: replica %s, controller at %s, control API at %s", *replica, p.URL(), *control)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	// A native sidecar gets SIGTERM once the controller has exited: its
	// log is complete. Seal it, so a copy read from now on is final.
	p.Seal()
	log.Printf("faultproxy: sealed; answering the control API for %s more", *linger)
	time.Sleep(*linger) // not synchronisation: the pod's last words stay readable
	shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return srv.Shutdown(shutdown)
}
