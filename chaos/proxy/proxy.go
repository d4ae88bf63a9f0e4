package proxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/steadystate-dev/steadystate/internal/pki"
)

// Options configure a proxy.
type Options struct {
	// Upstream reaches the API server with the credentials of the subject.
	Upstream *rest.Config
	// Replica is the identity recorded with every request. Default "replica".
	Replica string
	// Addr is where the proxy listens. Default 127.0.0.1:0 (a free port).
	Addr string
	// CA signs the proxy's serving certificate. Default: a new CA.
	CA *pki.CA
	// Log, when set, is a file the proxy appends its older requests and
	// events to, one JSON object a line, keeping only the requests in
	// flight and a window of the newest in memory: its memory stays
	// bounded however long it runs, and Requests and Events read the file
	// back. Empty: the whole history stays in memory.
	Log string
	// Window is how many requests, and how many events, the memory keeps
	// with a Log. Default 4096.
	Window int
	// Namespace, when set, confines the subject to that namespace: its
	// list, watch or delete of a collection across every namespace, of
	// a namespaced resource, reaches the API server as the same request
	// in Namespace (its record keeps the request as the subject sent
	// it). Subjects in namespaces of their own then share one control
	// plane. Cluster-scoped resources stay shared.
	Namespace string
}

// DefaultWindow is Options.Window's default.
const DefaultWindow = 4096

// Proxy is a running fault proxy. See the package documentation.
type Proxy struct {
	opts     Options
	upstream *url.URL
	rt       http.RoundTripper
	listener net.Listener
	server   *http.Server
	caPEM    []byte
	reverse  *httputil.ReverseProxy

	rules *ruleSet
	// scope confines the subject to Options.Namespace; nil: unconfined.
	scope *scope
	*recorder
	watches *watchRegistry
	rvs     *rvTracker
	held    atomic.Int64
	// sealed: every later request is refused and the log is final;
	// active counts requests being served.
	sealed atomic.Bool
	active atomic.Int64

	closeOnce sync.Once

	// The client of the conflicting writes (conflictClient), and how
	// many marks they set (each mark's value).
	conflictOnce    sync.Once
	conflictDynamic dynamic.Interface
	conflictErr     error
	conflicts       atomic.Int64
}

// Start starts a proxy in front of opts.Upstream.
func Start(opts Options) (*Proxy, error) {
	if opts.Upstream == nil {
		return nil, errors.New("fault proxy: Options.Upstream is required (the API server and the subject's credentials)")
	}
	if opts.Replica == "" {
		opts.Replica = "replica"
	}
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	upstream, err := url.Parse(opts.Upstream.Host)
	if err != nil || upstream.Host == "" {
		return nil, fmt.Errorf("fault proxy: upstream host %q is not a URL", opts.Upstream.Host)
	}
	rt, err := rest.TransportFor(opts.Upstream)
	if err != nil {
		return nil, fmt.Errorf("fault proxy: upstream transport: %w", err)
	}
	if opts.CA == nil {
		if opts.CA, err = pki.NewCA("steadystate-proxy-ca"); err != nil {
			return nil, err
		}
	}
	cert, err := servingCert(opts.CA)
	if err != nil {
		return nil, err
	}
	if opts.Window <= 0 {
		opts.Window = DefaultWindow
	}
	var log *spool
	if opts.Log != "" {
		if log, err = createSpool(opts.Log); err != nil {
			return nil, err
		}
	}
	l, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		if log != nil {
			log.close()
		}
		return nil, fmt.Errorf("fault proxy: listen on %s: %w", opts.Addr, err)
	}
	p := &Proxy{
		opts: opts, upstream: upstream, rt: rt, listener: l, caPEM: opts.CA.CertPEM,
		rules: newRuleSet(), recorder: newRecorder(log, opts.Window), watches: newWatchRegistry(), rvs: newRVTracker(),
	}
	if opts.Namespace != "" {
		disc, err := discovery.NewDiscoveryClientForConfig(opts.Upstream)
		if err != nil {
			l.Close()
			if log != nil {
				log.close()
			}
			return nil, fmt.Errorf("fault proxy: discovery for Options.Namespace: %w", err)
		}
		p.scope = newScope(opts.Namespace, disc)
	}
	p.reverse = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(upstream)
			pr.Out.Host = upstream.Host
			// The upstream transport authenticates as the subject; a
			// credential the subject sent to the proxy must not win.
			pr.Out.Header.Del("Authorization")
		},
		Transport:     rt,
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			if errors.Is(err, context.Canceled) {
				return
			}
			writeStatus(w, http.StatusBadGateway, "fault proxy: API server unreachable: "+err.Error())
		},
	}
	p.server = &http.Server{
		Handler:           p,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          quietLog(),
	}
	// ServeTLS ends with http.ErrServerClosed at Close; a listener that
	// fails before shows as the controller's requests failing.
	go func() { _ = p.server.ServeTLS(l, "", "") }()
	return p, nil
}

func servingCert(ca *pki.CA) (tls.Certificate, error) {
	dns, ips := pki.Loopback()
	pair, err := ca.Issue(pki.Request{Subject: pkix.Name{CommonName: "steadystate-fault-proxy"}, DNSNames: dns, IPs: ips, Usage: x509.ExtKeyUsageServerAuth})
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("fault proxy: serving certificate: %w", err)
	}
	return pair.TLS()
}

// Replica is the identity recorded with every request.
func (p *Proxy) Replica() string { return p.opts.Replica }

// URL is the proxy's address.
func (p *Proxy) URL() string { return "https://" + p.listener.Addr().String() }

// RESTConfig is a client configuration for the subject: it trusts the proxy
// and carries no credentials (the proxy adds the subject's).
func (p *Proxy) RESTConfig() *rest.Config {
	return &rest.Config{
		Host:            p.URL(),
		TLSClientConfig: rest.TLSClientConfig{CAData: p.caPEM},
		QPS:             p.opts.Upstream.QPS,
		Burst:           p.opts.Upstream.Burst,
	}
}

// WriteKubeconfig writes a kubeconfig for the subject to path.
func (p *Proxy) WriteKubeconfig(path string) error {
	cfg := clientcmdapi.NewConfig()
	name := "steadystate-proxy-" + p.opts.Replica
	cfg.Clusters[name] = &clientcmdapi.Cluster{Server: p.URL(), CertificateAuthorityData: p.caPEM}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	cfg.CurrentContext = name
	return clientcmd.WriteToFile(*cfg, path)
}

// AddRule activates a fault and returns its ID.
func (p *Proxy) AddRule(r Rule) (string, error) {
	id, err := p.rules.add(r)
	if err != nil {
		return "", err
	}
	if r.Action == Partition && !r.Blackhole {
		p.watches.cut(Match{}, true)
	}
	return id, nil
}

// RemoveRule ends a fault. Removing an unknown or used-up rule is not an error.
func (p *Proxy) RemoveRule(id string) error { p.rules.remove(id); return nil }

// ClearRules ends every fault.
func (p *Proxy) ClearRules() error { p.rules.clear(); return nil }

// CutWatches ends every open watch that m selects, the way the API server
// ends a watch, and returns how many. Events held by a stall are dropped.
// The client re-watches from the last resource version it saw.
func (p *Proxy) CutWatches(m Match) (int, error) { return p.watches.cut(m, false), nil }

// ResetWatches resets the streams of every open watch that m selects, as a
// network failure would, and returns how many. Since Kubernetes 1.35
// client-go's reflector answers a reset with a full relist (watch-list).
func (p *Proxy) ResetWatches(m Match) (int, error) { return p.watches.cut(m, true), nil }

// ActiveWatches counts the open watch streams that m selects.
func (p *Proxy) ActiveWatches(m Match) int { return p.watches.count(m) }

// Held counts the events held right now by stalls and blackholes.
func (p *Proxy) Held() int { return int(p.held.Load()) }

// SealedFault is the Fault of a request the proxy refused once sealed.
const SealedFault = "sealed"

// Seal stops serving the replica for good: later requests are refused,
// watches are reset, and once the requests in flight have finished (5s at
// most) the log is final, so a copy taken after Seal is the replica's whole
// history. A pod kill seals the replica's proxy and copies its log before
// it deletes the pod; the sidecar seals itself on SIGTERM, which a native
// sidecar gets only after the controller has exited.
func (p *Proxy) Seal() {
	p.sealed.Store(true)
	p.watches.cut(Match{}, true)
	_ = wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
		return p.active.Load() == 0, nil
	})
}

// Sealed reports whether Seal was called: the log will not change.
func (p *Proxy) Sealed() bool { return p.sealed.Load() }

// Close ends every fault, cuts every watch and stops the proxy.
func (p *Proxy) Close() error {
	var err error
	p.closeOnce.Do(func() {
		p.rules.clear()
		p.watches.cut(Match{}, true)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = p.server.Shutdown(ctx)
		if errors.Is(err, context.DeadlineExceeded) {
			err = p.server.Close()
		}
		err = errors.Join(err, p.closeSpool())
	})
	return err
}
