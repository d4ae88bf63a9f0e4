package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// ConflictAnnotation is the annotation a conflicting write (Rule.Conflict)
// sets on the object, and the second write takes off again: the object
// ends as it was but for its resourceVersion (and the field manager's
// entry, ConflictManager, which the API server drops with its last field).
const ConflictAnnotation = "steadystate.dev/conflict"

// ConflictManager is the field manager the conflicting writes are made as.
const ConflictManager = "steadystate-conflict"

// conflicting writes the object a request names twice, ConflictAnnotation
// set then taken off, straight to the API server with the proxy's
// credentials (not through the proxy: they are no request of the
// subject's), before the proxy answers the request 409. It says what it
// made, for the request's record: the resourceVersions, or why the object
// was not written (a create, a collection, an object gone, a write the
// credentials may not make).
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
	var rvs []string
	for i, value := range []any{time.Now().UTC().Format(time.RFC3339Nano), nil} {
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{ConflictAnnotation: value}}})
		// On the object itself, whatever the request's subresource: a
		// status write conflicts with any change of its object.
		o, err := res.Patch(ctx, info.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: ConflictManager})
		if err != nil {
			if i == 1 {
				return fmt.Sprintf("written at resourceVersion %s, but %s was left on: %v", rvs[0], ConflictAnnotation, err)
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
		p.conflicts, p.conflictErr = dynamic.NewForConfig(p.opts.Upstream)
	})
	return p.conflicts, p.conflictErr
}
