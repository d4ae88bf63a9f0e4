package proxy

import (
	"fmt"
	"net/http"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

// scope confines a subject to one namespace (Options.Namespace): a list,
// watch or delete of a collection across every namespace, of a
// namespaced resource, reaches the API server as the same request in
// that namespace. Several subjects then share one control plane, each
// seeing only its own namespace's objects of the kinds it reads
// everywhere, as it would on a cluster of its own. A cluster-scoped
// resource (nodes, namespaces) is not confined: the subjects share it.
type scope struct {
	namespace string
	disc      discovery.DiscoveryInterface

	mu sync.Mutex
	// namespaced holds, per group/version asked about, whether each of
	// its resources is namespaced.
	namespaced map[schema.GroupVersion]map[string]bool
}

func newScope(namespace string, disc discovery.DiscoveryInterface) *scope {
	return &scope{namespace: namespace, disc: disc, namespaced: map[schema.GroupVersion]map[string]bool{}}
}

// confine rewrites r's path into the scope's namespace when info is a
// request across every namespace of a namespaced resource; an error says
// the API server could not tell whether the resource is namespaced.
func (s *scope) confine(r *http.Request, info RequestInfo) error {
	if s == nil || info.Namespace != "" || info.Name != "" || info.Subresource != "" || !info.IsResource() {
		return nil
	}
	if info.Verb != "list" && info.Verb != "watch" && info.Verb != "deletecollection" {
		return nil
	}
	ok, err := s.isNamespaced(schema.GroupVersion{Group: info.Group, Version: info.Version}, info.Resource)
	if err != nil || !ok {
		return err
	}
	prefix := "/apis/" + info.Group + "/" + info.Version
	if info.Group == "" {
		prefix = "/api/" + info.Version
	}
	r.URL.Path = prefix + "/namespaces/" + s.namespace + "/" + info.Resource
	r.URL.RawPath = ""
	return nil
}

// isNamespaced asks discovery once per group/version, and again when a
// resource is not among what it said (a custom resource defined since).
func (s *scope) isNamespaced(gv schema.GroupVersion, resource string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if known, ok := s.namespaced[gv]; ok {
		if namespaced, ok := known[resource]; ok {
			return namespaced, nil
		}
	}
	list, err := s.disc.ServerResourcesForGroupVersion(gv.String())
	if apierrors.IsNotFound(err) {
		// No such group/version: the API server answers the request
		// 404 itself, confined or not.
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("fault proxy: is %s of %s namespaced? discovery: %w", resource, gv, err)
	}
	known := map[string]bool{}
	for _, r := range list.APIResources {
		known[r.Name] = r.Namespaced
	}
	s.namespaced[gv] = known
	// A resource discovery does not list is answered 404 as well.
	return known[resource], nil
}
