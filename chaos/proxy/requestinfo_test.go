package proxy

import (
	"net/url"
	"testing"
)

func TestParseRequest(t *testing.T) {
	cases := []struct {
		method, url string
		want        RequestInfo
	}{
		{"GET", "/api/v1/namespaces/ns1/pods?watch=true&resourceVersion=42", RequestInfo{Verb: "watch", Version: "v1", Resource: "pods", Namespace: "ns1", ResourceVersion: "42"}},
		{"GET", "/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan", RequestInfo{Verb: "watch", Version: "v1", Resource: "pods", SendInitialEvents: true}},
		{"GET", "/api/v1/namespaces/ns1/pods/p1", RequestInfo{Verb: "get", Version: "v1", Resource: "pods", Namespace: "ns1", Name: "p1"}},
		{"GET", "/api/v1/namespaces/ns1", RequestInfo{Verb: "get", Version: "v1", Resource: "namespaces", Name: "ns1"}},
		{"GET", "/api/v1/namespaces", RequestInfo{Verb: "list", Version: "v1", Resource: "namespaces"}},
		{"PUT", "/api/v1/namespaces/ns1/finalize", RequestInfo{Verb: "update", Version: "v1", Resource: "namespaces", Name: "ns1", Subresource: "finalize"}},
		{"PUT", "/api/v1/namespaces/ns1/status", RequestInfo{Verb: "update", Version: "v1", Resource: "namespaces", Name: "ns1", Subresource: "status"}},
		{"DELETE", "/api/v1/namespaces/ns1", RequestInfo{Verb: "delete", Version: "v1", Resource: "namespaces", Name: "ns1"}},
		{"PUT", "/apis/apps/v1/namespaces/ns1/replicasets/rs/status", RequestInfo{Verb: "update", Group: "apps", Version: "v1", Resource: "replicasets", Namespace: "ns1", Name: "rs", Subresource: "status"}},
		{"POST", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases", RequestInfo{Verb: "create", Group: "coordination.k8s.io", Version: "v1", Resource: "leases", Namespace: "kube-system"}},
		{"DELETE", "/api/v1/namespaces/ns1/pods", RequestInfo{Verb: "deletecollection", Version: "v1", Resource: "pods", Namespace: "ns1"}},
		{"DELETE", "/api/v1/namespaces/ns1/configmaps?labelSelector=app%3Dw", RequestInfo{Verb: "deletecollection", Version: "v1", Resource: "configmaps", Namespace: "ns1", LabelSelector: "app=w"}},
		{"GET", "/api/v1/namespaces/ns1/configmaps?watch=true&labelSelector=app%3Dw&fieldSelector=metadata.name%3Dc", RequestInfo{Verb: "watch", Version: "v1", Resource: "configmaps", Namespace: "ns1", LabelSelector: "app=w", FieldSelector: "metadata.name=c"}},
		{"GET", "/api/v1/namespaces/ns1/configmaps?labelSelector=app%3Dw", RequestInfo{Verb: "list", Version: "v1", Resource: "configmaps", Namespace: "ns1", LabelSelector: "app=w"}},
		{"DELETE", "/api/v1/namespaces/ns1/pods/p1", RequestInfo{Verb: "delete", Version: "v1", Resource: "pods", Namespace: "ns1", Name: "p1"}},
		{"PATCH", "/apis/example.dev/v1/widgets/w", RequestInfo{Verb: "patch", Group: "example.dev", Version: "v1", Resource: "widgets", Name: "w"}},
		{"GET", "/apis/apps/v1", RequestInfo{Verb: "get", Path: "/apis/apps/v1"}},
		{"GET", "/readyz", RequestInfo{Verb: "get", Path: "/readyz"}},
	}
	for _, tc := range cases {
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := ParseRequest(tc.method, u); got != tc.want {
			t.Errorf("%s %s:\n got %+v\nwant %+v", tc.method, tc.url, got, tc.want)
		}
	}
}

// IsWrite is the one list of writing verbs the proxy, the judges and the
// report page share: resource writes only.
func TestIsWrite(t *testing.T) {
	for _, tc := range []struct {
		info RequestInfo
		want bool
	}{
		{RequestInfo{Verb: "create", Resource: "pods"}, true},
		{RequestInfo{Verb: "deletecollection", Resource: "pods"}, true},
		{RequestInfo{Verb: "patch", Resource: "pods", Subresource: "status"}, true},
		{RequestInfo{Verb: "watch", Resource: "pods"}, false},
		{RequestInfo{Verb: "get", Resource: "pods"}, false},
		{RequestInfo{Verb: "post", Path: "/apis"}, false},
	} {
		if got := tc.info.IsWrite(); got != tc.want {
			t.Errorf("%+v: IsWrite = %v, want %v", tc.info, got, tc.want)
		}
	}
}

// A rule may select several resources (Match.Resources), any of which
// matches, each bare or with its group, beside the other fields.
func TestMatchResources(t *testing.T) {
	m := Match{Verbs: []string{"create", "patch"}, Resources: []string{"pods", "deployments.apps"}, Namespace: "ns"}
	for _, tc := range []struct {
		info RequestInfo
		want bool
	}{
		{RequestInfo{Verb: "create", Resource: "pods", Namespace: "ns"}, true},
		{RequestInfo{Verb: "patch", Group: "apps", Resource: "deployments", Subresource: "status", Namespace: "ns"}, true},
		{RequestInfo{Verb: "create", Group: "extensions", Resource: "deployments", Namespace: "ns"}, false},
		{RequestInfo{Verb: "create", Group: "coordination.k8s.io", Resource: "leases", Namespace: "ns"}, false},
		{RequestInfo{Verb: "create", Resource: "events", Namespace: "ns"}, false},
		{RequestInfo{Verb: "create", Resource: "pods", Namespace: "other"}, false},
		{RequestInfo{Verb: "get", Resource: "pods", Namespace: "ns"}, false},
	} {
		if got := m.Matches(tc.info); got != tc.want {
			t.Errorf("%+v: Matches = %v, want %v", tc.info, got, tc.want)
		}
	}
	// With Resource too, a request must be named by both.
	both := Match{Resource: "pods", Resources: []string{"pods", "configmaps"}}
	if both.Matches(RequestInfo{Verb: "watch", Resource: "configmaps"}) || !both.Matches(RequestInfo{Verb: "watch", Resource: "pods"}) {
		t.Error("Resource and Resources together: a request must be named by both")
	}
}
