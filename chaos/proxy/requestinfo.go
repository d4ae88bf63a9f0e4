package proxy

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// RequestInfo is what the proxy understands of a Kubernetes API request.
type RequestInfo struct {
	// Verb is get, list, watch, create, update, patch, delete or
	// deletecollection; for non-resource paths (/healthz, discovery) it is
	// the lower-case HTTP method.
	Verb        string `json:"verb"`
	Group       string `json:"group,omitempty"`
	Version     string `json:"version,omitempty"`
	Resource    string `json:"resource,omitempty"`
	Subresource string `json:"subresource,omitempty"`
	Namespace   string `json:"namespace,omitempty"`
	Name        string `json:"name,omitempty"`
	// Path is set for non-resource requests.
	Path string `json:"path,omitempty"`
	// ResourceVersion and SendInitialEvents are the watch parameters that
	// tell a resumed watch from a relist.
	ResourceVersion   string `json:"resourceVersion,omitempty"`
	SendInitialEvents bool   `json:"sendInitialEvents,omitempty"`
	// LabelSelector and FieldSelector narrow a list, a watch or a
	// deletecollection: what a controller sees of a resource, and which
	// objects one delete of a collection took.
	LabelSelector string `json:"labelSelector,omitempty"`
	FieldSelector string `json:"fieldSelector,omitempty"`
}

// IsResource reports whether the request names an API resource.
func (r RequestInfo) IsResource() bool { return r.Resource != "" }

// Resumable says whether a watch resumes from a resource version ("" and
// "0" name none): the only kind the API server can answer with 410.
func (r RequestInfo) Resumable() bool {
	return r.ResourceVersion != "" && r.ResourceVersion != "0"
}

// WriteVerbs are the verbs of a request that writes an object (IsWrite).
var WriteVerbs = []string{"create", "update", "patch", "delete", "deletecollection"}

// IsWrite reports whether the request writes an object: create, update,
// patch, delete or deletecollection of a resource.
func (r RequestInfo) IsWrite() bool {
	return r.IsResource() && slices.Contains(WriteVerbs, r.Verb)
}

// GroupResource is "resource" for the core group, else "resource.group".
func (r RequestInfo) GroupResource() string {
	if r.Group == "" {
		return r.Resource
	}
	return r.Resource + "." + r.Group
}

// ParseRequest classifies an API request by its method, path and query.
func ParseRequest(method string, u *url.URL) RequestInfo {
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	info := RequestInfo{Verb: strings.ToLower(method), Path: u.Path}
	var rest []string
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		info.Version, rest = parts[1], parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		info.Group, info.Version, rest = parts[1], parts[2], parts[3:]
	default:
		return info // discovery, /healthz, /version, ...
	}
	// /namespaces/{ns}/{resource}/... is namespaced, while
	// /namespaces/{name}[/status|/finalize] is the namespace itself: a
	// cluster-scoped object, so no namespace (the API server's own request
	// info gives it its name as namespace, for authorization; an object
	// keyed that way would be looked for inside itself).
	if len(rest) > 2 && rest[0] == "namespaces" && rest[2] != "status" && rest[2] != "finalize" {
		info.Namespace = rest[1]
		rest = rest[2:]
	}
	info.Resource = rest[0]
	if len(rest) > 1 {
		info.Name = rest[1]
	}
	if len(rest) > 2 {
		info.Subresource = strings.Join(rest[2:], "/")
	}
	info.Path = ""
	q := u.Query()
	info.ResourceVersion = q.Get("resourceVersion")
	info.SendInitialEvents = q.Get("sendInitialEvents") == "true"
	info.Verb = resourceVerb(method, info.Name != "", q)
	switch info.Verb {
	case "list", "watch", "deletecollection":
		info.LabelSelector, info.FieldSelector = q.Get("labelSelector"), q.Get("fieldSelector")
	}
	return info
}

func resourceVerb(method string, named bool, q url.Values) string {
	switch method {
	case http.MethodGet, http.MethodHead:
		if w := q.Get("watch"); w == "true" || w == "1" {
			return "watch"
		}
		if named {
			return "get"
		}
		return "list"
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		if named {
			return "delete"
		}
		return "deletecollection"
	}
	return strings.ToLower(method)
}
