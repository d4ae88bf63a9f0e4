package chaos

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/cluster/local/localtest"
	"github.com/steadystate-dev/steadystate/internal/victim"
)

var eventually = localtest.Eventually

// proxiedTarget puts one proxy (replica "r0") in front of c and returns
// the target the faults act on, with the victim's client configuration.
func proxiedTarget(t *testing.T, c *localtest.Cluster) (Target, *proxy.Proxy) {
	t.Helper()
	p, err := proxy.Start(proxy.Options{Upstream: c.REST, Replica: "r0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return Target{
		Kube: c.Kube, Dynamic: dynamic.NewForConfigOrDie(c.REST), Etcd: c.EtcdEndpoint(),
		Replicas: []Replica{{Identity: "r0", Proxy: p}},
	}, p
}

func startInformer(t *testing.T, cfg *rest.Config, ns string, kind victim.Kind) *victim.Informer {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	inf, stop, ok := victim.Start(ctx, cfg, ns, kind)
	if !ok {
		t.Fatal("the victim informer did not sync")
	}
	t.Cleanup(stop)
	return inf
}

func createConfigMap(t *testing.T, c *localtest.Cluster, ns, name string) {
	t.Helper()
	if _, err := c.Kube.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func deleteConfigMap(t *testing.T, c *localtest.Cluster, ns, name string) {
	t.Helper()
	if err := c.Kube.CoreV1().ConfigMaps(ns).Delete(t.Context(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}
