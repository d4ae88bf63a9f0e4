package proxy

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/steadystate-dev/steadystate/cluster/local/localtest"
	"github.com/steadystate-dev/steadystate/internal/victim"
)

// env is a proxy in front of the shared cluster, an admin client that
// bypasses it, and a namespace of the test's own.
type env struct {
	proxy *Proxy
	admin kubernetes.Interface
	ns    string
}

func newEnv(t *testing.T, c *localtest.Cluster) *env {
	t.Helper()
	p, err := Start(Options{Upstream: c.REST, Replica: "victim-0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return &env{proxy: p, admin: c.Kube, ns: c.Namespace(t, "proxy")}
}

// victimConfig is how an unmodified client reaches the cluster through the
// proxy; protobuf selects the wire format kube-controller-manager uses.
func (e *env) victimConfig(protobuf bool) *rest.Config {
	cfg := e.proxy.RESTConfig()
	if protobuf {
		cfg.ContentType = "application/vnd.kubernetes.protobuf"
		cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	}
	return cfg
}

// startInformer runs an unmodified client-go ConfigMap informer through cfg.
func (e *env) startInformer(t *testing.T, cfg *rest.Config) *victim.Informer {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	inf, stop, ok := victim.Start(ctx, cfg, e.ns, victim.ConfigMaps)
	if !ok {
		t.Fatal("the informer did not sync through the proxy")
	}
	t.Cleanup(stop)
	return inf
}

func (e *env) createCM(t *testing.T, name string, data map[string]string) {
	t.Helper()
	if _, err := e.admin.CoreV1().ConfigMaps(e.ns).Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: data}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func (e *env) deleteCM(t *testing.T, name string) {
	t.Helper()
	if err := e.admin.CoreV1().ConfigMaps(e.ns).Delete(t.Context(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

var eventually = localtest.Eventually

// requestsSince lists the proxy's requests with an ID above after that
// match m.
func (e *env) requestsSince(after uint64, m Match) []Request {
	var out []Request
	for _, r := range e.proxy.Requests() {
		if r.ID > after && m.Matches(r.RequestInfo) {
			out = append(out, r)
		}
	}
	return out
}
