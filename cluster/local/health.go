package local

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/steadystate-dev/steadystate/internal/freeport"
	"github.com/steadystate-dev/steadystate/internal/proc"
)

// pollInterval is how often start-up probes a component.
const pollInterval = 25 * time.Millisecond

// healthCheck returns nil once a component is healthy.
type healthCheck func(ctx context.Context) error

// waitHealthy polls check until it passes, the process exits, the timeout
// passes or ctx ends, and says which. A check that passes on port (0 for
// a check of no port of the process's) must have been answered by p: when
// another process holds the port, p has lost it (it was taken between its
// pick and p's start) and the error is errPortTaken.
func waitHealthy(ctx context.Context, p *proc.Proc, port int, timeout time.Duration, check healthCheck) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	var last error
	for {
		probeCtx, cancel := context.WithTimeout(ctx, time.Second)
		last = check(probeCtx)
		cancel()
		if last == nil {
			return heldBy(p, port)
		}
		select {
		case <-p.Done():
			return p.ExitError()
		case <-ctx.Done():
			return fmt.Errorf("start-up of %s interrupted: %w", p.Name(), ctx.Err())
		case <-deadline.C:
			return fmt.Errorf("%s not healthy after %s (last check: %v); log: %s", p.Name(), timeout, last, p.LogPath())
		case <-tick.C:
		}
	}
}

// heldBy is nil when p holds the socket listening on port, or when port
// is 0 or the machine cannot say who holds it.
func heldBy(p *proc.Proc, port int) error {
	if port == 0 {
		return nil
	}
	held, err := freeport.ListenedBy(p.PID(), port)
	if err != nil || held {
		return nil
	}
	return fmt.Errorf("%w: port %d answers %s's health check, but another process holds it", errPortTaken, port, p.Name())
}

func etcdHealth(port int) healthCheck {
	url := fmt.Sprintf("http://127.0.0.1:%d/health", port)
	return func(ctx context.Context) error {
		body, err := get(ctx, http.DefaultClient, url)
		if err != nil {
			return err
		}
		if !strings.Contains(body, `"health":"true"`) {
			return fmt.Errorf("etcd /health: %s", body)
		}
		return nil
	}
}

// apiServerReady passes once every /readyz check does. On a seeded store
// (seeded), the checks of the hooks whose work the seed holds are left
// out, and the system namespaces must exist: on an empty store the RBAC
// hook makes them before it passes.
func apiServerReady(server string, k *clusterPKI, seeded bool) (healthCheck, error) {
	client, err := tlsClient(k.CACert, k.AdminCert, k.AdminKey)
	if err != nil {
		return nil, err
	}
	if !seeded {
		return okCheck(client, server+"/readyz"), nil
	}
	q := url.Values{"exclude": seededHooks}
	ready := okCheck(client, server+"/readyz?"+q.Encode())
	return func(ctx context.Context) error {
		if err := ready(ctx); err != nil {
			return err
		}
		for _, ns := range systemNamespaces {
			if _, err := get(ctx, client, server+"/api/v1/namespaces/"+ns); err != nil {
				return fmt.Errorf("namespace %s: %w", ns, err)
			}
		}
		return nil
	}, nil
}

// apiServerHealthy is the API server's whole /healthz, every post-start
// hook included: what kube-controller-manager waits for, 10 s at most,
// before it gives up and exits.
func apiServerHealthy(server string, k *clusterPKI) (healthCheck, error) {
	client, err := tlsClient(k.CACert, k.AdminCert, k.AdminKey)
	if err != nil {
		return nil, err
	}
	return okCheck(client, server+"/healthz"), nil
}

func controllerManagerHealthy(port int, k *clusterPKI) (healthCheck, error) {
	client, err := tlsClient(k.CACert, "", "")
	if err != nil {
		return nil, err
	}
	return okCheck(client, fmt.Sprintf("https://127.0.0.1:%d/healthz", port)), nil
}

func schedulerHealthy(port int, k *clusterPKI) (healthCheck, error) {
	client, err := tlsClient(k.CACert, "", "")
	if err != nil {
		return nil, err
	}
	return okCheck(client, fmt.Sprintf("https://127.0.0.1:%d/healthz", port)), nil
}

func okCheck(client *http.Client, target string) healthCheck {
	return func(ctx context.Context) error {
		body, err := get(ctx, client, target)
		if err != nil {
			return err
		}
		if strings.TrimSpace(body) != "ok" {
			return fmt.Errorf("%s: %s", target, body)
		}
		return nil
	}
}

func get(ctx context.Context, client *http.Client, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: HTTP %d: %s", url, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	return string(body), nil
}

// tlsClient trusts only the cluster's CA and, when certFile is set, presents
// that client certificate.
func tlsClient(caFile, certFile, keyFile string) (*http.Client, error) {
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if certFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, err
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: cfg, DisableKeepAlives: true}}, nil
}
