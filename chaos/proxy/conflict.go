package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// ConflictMark is the key of the mark a conflicting write (Rule.Conflict)
// sets on the object and the second write takes off again: the object
// ends as it was but for its resourceVersion (and the field manager's
// entry, ConflictManager, which the API server drops with its last
// field). The mark is a label (conflictMarkIn), a change no kind's
// generation counts but an EndpointSlice's; there, an annotation. A
// Deployment counts its annotations, which it copies onto its
// ReplicaSets; a custom resource counts neither.
const ConflictMark = "steadystate.dev/conflict"

// ConflictManager is the field manager the conflicting writes are made as.
const ConflictManager = "steadystate-conflict"

// conflictMarkIn is the metadata field, labels or annotations, the
// conflicting writes put their mark in on an object of resource (as
// RequestInfo.GroupResource names it).
func conflictMarkIn(resource string) string {
	if resource == "endpointslices.discovery.k8s.io" {
		return "annotations"
	}
	return "labels"
}

// conflicting writes the object a request names twice, ConflictMark set
// then taken off, straight to the API server with the proxy's credentials
// (not through the proxy: they are no request of the subject's), before
// the proxy answers the request 409. It says what it made, for the
// request's record: the resourceVersions, or why the object was not
// written (a create, an object gone, a write the credentials may not
// make).
func (p *Proxy) conflicting(ctx context.Context, info RequestInfo) string {
	if info.Name == "" || info.Verb == "create" {
		return "not written: the request names no object that exists"
	}
	objects, err := p.conflictClient()
	if err != nil {
		return "not written: " + err.Error()
	}
	all := objects.Resource(schema.GroupVersionResource{Group: info.Group, Version: info.Version, Resource: info.Resource})
	var res dynamic.ResourceInterface = all
	if info.Namespace != "" {
		res = all.Namespace(info.Namespace)
	}
	field := conflictMarkIn(info.GroupResource())
	var rvs []string
	for i, value := range []any{strconv.FormatInt(p.conflicts.Add(1), 10), nil} {
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{field: map[string]any{ConflictMark: value}}})
		// On the object itself, whatever the request's subresource: a
		// status write conflicts with any change of its object.
		o, err := res.Patch(ctx, info.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: ConflictManager})
		if err != nil {
			if i == 1 {
				return fmt.Sprintf("written at resourceVersion %s, but the %s %s was left on: %v", rvs[0], field, ConflictMark, err)
			}
			return "not written: " + err.Error()
		}
		rvs = append(rvs, o.GetResourceVersion())
	}
	return fmt.Sprintf("written at resourceVersions %s and %s", rvs[0], rvs[1])
}

// conflictClient is the dynamic client the conflicting writes are made
// with, made at its first use.
func (p *Proxy) conflictClient() (dynamic.Interface, error) {
	p.conflictOnce.Do(func() {
		p.conflictDynamic, p.conflictErr = dynamic.NewForConfig(p.opts.Upstream)
	})
	return p.conflictDynamic, p.conflictErr
}
