package proxy

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/steadystate-dev/steadystate/cluster/local/localtest"
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
	ns := fmt.Sprintf("proxy-%d", time.Now().UnixNano())
	if _, err := c.Kube.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return &env{proxy: p, admin: c.Kube, ns: ns}
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

// informer is a client-go ConfigMap informer through the proxy that
// records what its handler saw.
type informer struct {
	store cache.Store
	mu    sync.Mutex
	seen  []string // "ADD name", "UPDATE name", "DELETE name"
}

func (e *env) startInformer(t *testing.T, cfg *rest.Config) *informer {
	t.Helper()
	kube := kubernetes.NewForConfigOrDie(cfg)
	factory := informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithNamespace(e.ns))
	inf := factory.Core().V1().ConfigMaps().Informer()
	v := &informer{store: inf.GetStore()}
	note := func(kind string, obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		v.mu.Lock()
		v.seen = append(v.seen, kind+" "+obj.(*corev1.ConfigMap).Name)
		v.mu.Unlock()
	}
	inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { note("ADD", o) },
		UpdateFunc: func(_, o any) { note("UPDATE", o) },
		DeleteFunc: func(o any) { note("DELETE", o) },
	})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); factory.Shutdown() })
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("the informer did not sync through the proxy")
	}
	return v
}

func (v *informer) saw(entry string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, s := range v.seen {
		if s == entry {
			return true
		}
	}
	return false
}

func (v *informer) has(ns, name string) bool {
	_, ok, _ := v.store.GetByKey(ns + "/" + name)
	return ok
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

// eventually polls cond every 20 ms until it holds or timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

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
