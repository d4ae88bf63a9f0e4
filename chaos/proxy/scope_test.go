package proxy

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// A subject confined to one namespace lists and watches a namespaced
// resource across every namespace and sees only its namespace's objects;
// a cluster-scoped resource is not confined, and the record keeps the
// request as the subject sent it.
func TestNamespaceConfinesListsAndWatches(t *testing.T) {
	c := cluster(t)
	ns, other := c.Namespace(t, "confined"), c.Namespace(t, "other")
	p, err := Start(Options{Upstream: c.REST, Replica: "confined-0", Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	create := func(namespace, name string) {
		t.Helper()
		if _, err := c.Kube.CoreV1().ConfigMaps(namespace).Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	create(ns, "mine")
	create(other, "theirs")
	subject := kubernetes.NewForConfigOrDie(p.RESTConfig())

	cms, err := subject.CoreV1().ConfigMaps("").List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, cm := range cms.Items {
		listed = append(listed, cm.Namespace+"/"+cm.Name)
		if cm.Namespace != ns {
			t.Errorf("the list across every namespace gave %s/%s: want only namespace %s's", cm.Namespace, cm.Name, ns)
		}
	}
	if !slices.Contains(listed, ns+"/mine") {
		t.Errorf("the list across every namespace gave %v: want %s/mine among them", listed, ns)
	}

	w, err := subject.CoreV1().ConfigMaps("").Watch(t.Context(), metav1.ListOptions{ResourceVersion: cms.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	create(other, "theirs-later")
	create(ns, "mine-later")
	select {
	case ev := <-w.ResultChan():
		cm, ok := ev.Object.(*corev1.ConfigMap)
		if ev.Type != watch.Added || !ok || cm.Namespace != ns || cm.Name != "mine-later" {
			t.Errorf("the watch across every namespace saw %s %v first: want %s/mine-later added, and nothing of %s", ev.Type, ev.Object, ns, other)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the watch across every namespace saw nothing in 10s")
	}

	// Cluster-scoped: shared.
	namespaces, err := subject.CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(namespaces.Items, func(n corev1.Namespace) bool { return n.Name == other }) {
		t.Errorf("the list of namespaces through the confined proxy lacks %s: a cluster-scoped resource is not confined", other)
	}

	for _, r := range p.Requests() {
		if r.Resource == "configmaps" && (r.Verb == "list" || r.Verb == "watch") && r.Namespace != "" {
			t.Errorf("request %d, %s of configmaps, is recorded in namespace %q: want the request as the subject sent it, across every namespace", r.ID, r.Verb, r.Namespace)
		}
	}
}
