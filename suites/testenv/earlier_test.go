package testenv

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
)

var services = schema.GroupVersionResource{Version: "v1", Resource: "services"}

func namespace(name string, ours, deleting bool) *corev1.Namespace {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if ours {
		ns.Labels = map[string]string{NamespaceLabel: "true"}
	}
	if deleting {
		now := metav1.Now()
		ns.DeletionTimestamp = &now
	}
	return ns
}

func service(ns, name string, finalizers ...string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("Service")
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetFinalizers(finalizers)
	return u
}

// Only the objects of the run's resources in another of the harness's
// namespaces that is being deleted are an earlier run's leftovers: not
// the run's own, not a live run's (its namespace not being deleted), not
// a namespace the harness did not make. One nothing removes has its
// finalizers taken off, and is named when it still does not go (the fake
// API has no garbage collection, so it never does).
func TestEarlierRunsClear(t *testing.T) {
	kube := kubefake.NewSimpleClientset(
		namespace("own", true, false), namespace("live", true, false),
		namespace("gone", true, true), namespace("user", false, true))
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{services: "ServiceList"},
		service("own", "web"), service("live", "web"), service("user", "web"), service("gone", "web", "example.com/held"))
	e := EarlierRuns{Kube: kube, Dyn: dyn, Own: "own", Resources: []schema.GroupVersionResource{services}, Poll: 5 * time.Millisecond}
	ctx := context.Background()

	left, err := e.left(ctx)
	if err != nil || len(left) != 1 || left[0].String() != "Service gone/web" {
		t.Fatalf("left %v, %v; want Service gone/web only", left, err)
	}
	stripped, err := e.Clear(ctx, 50*time.Millisecond)
	if len(stripped) != 1 || stripped[0] != "Service gone/web" {
		t.Errorf("removed the finalizers of %v, want Service gone/web", stripped)
	}
	if err == nil || !strings.Contains(err.Error(), "Service gone/web") {
		t.Errorf("Clear's error %v, want one naming Service gone/web", err)
	}
	u, err := dyn.Resource(services).Namespace("gone").Get(ctx, "web", metav1.GetOptions{})
	if err != nil || len(u.GetFinalizers()) != 0 {
		t.Errorf("gone/web after Clear: finalizers %v, %v; want none", u.GetFinalizers(), err)
	}

	// Once it goes, Clear finds nothing and removes nothing.
	if err := dyn.Resource(services).Namespace("gone").Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if stripped, err := e.Clear(ctx, 50*time.Millisecond); err != nil || len(stripped) != 0 {
		t.Errorf("Clear with nothing left: %v, %v", stripped, err)
	}
}
