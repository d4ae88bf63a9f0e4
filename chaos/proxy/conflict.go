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

// ConflictWrite is what the write behind an injected 409 (Rule.Conflict)
// made of the object the refused request named.
type ConflictWrite struct {
	// ResourceVersions are the object's once the mark was set and once
	// it was taken off again.
	ResourceVersions []string `json:"resourceVersions,omitempty"`
	// NotWritten says why the object was not written, or the mark not
	// taken off; empty when both writes were made.
	NotWritten string `json:"notWritten,omitempty"`
}

// ConflictMissed reports whether the 409 came with no write behind it where
// the fault meant one: an update, patch or delete whose object could not
// be written, or a delete of a collection, which names no object (and
// which the API server never answers 409). A create's 409 says the object
// exists; there is none to write.
func (r Request) ConflictMissed() bool {
	return r.Conflict != nil && len(r.Conflict.ResourceVersions) == 0 && r.Verb != "create"
}

// conflicting writes the object a request names twice, ConflictMark set
// then taken off, straight to the API server with the proxy's credentials
// (not through the proxy: they are no request of the subject's), before
// the proxy answers the request 409, and says what it made.
func (p *Proxy) conflicting(ctx context.Context, info RequestInfo) *ConflictWrite {
	if info.Verb == "create" {
		return &ConflictWrite{NotWritten: "a create: its 409 says the object exists, and there is none to write"}
	}
	if info.Name == "" {
		return &ConflictWrite{NotWritten: "the request names no object"}
	}
	objects, err := p.conflictClient()
	if err != nil {
		return &ConflictWrite{NotWritten: err.Error()}
	}
	all := objects.Resource(schema.GroupVersionResource{Group: info.Group, Version: info.Version, Resource: info.Resource})
	var res dynamic.ResourceInterface = all
	if info.Namespace != "" {
		res = all.Namespace(info.Namespace)
	}
	field := conflictMarkIn(info.GroupResource())
	w := &ConflictWrite{}
	for _, value := range []any{strconv.FormatInt(p.conflicts.Add(1), 10), nil} {
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{field: map[string]any{ConflictMark: value}}})
		// On the object itself, whatever the request's subresource: a
		// status write conflicts with any change of its object.
		o, err := res.Patch(ctx, info.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: ConflictManager})
		if err != nil {
			w.NotWritten = err.Error()
			if len(w.ResourceVersions) > 0 {
				w.NotWritten = fmt.Sprintf("the %s %s was left on: %v", field, ConflictMark, err)
			}
			return w
		}
		w.ResourceVersions = append(w.ResourceVersions, o.GetResourceVersion())
	}
	return w
}

// conflictClient is the dynamic client the conflicting writes are made
// with, made at its first use.
func (p *Proxy) conflictClient() (dynamic.Interface, error) {
	p.conflictOnce.Do(func() {
		p.conflictDynamic, p.conflictErr = dynamic.NewForConfig(p.opts.Upstream)
	})
	return p.conflictDynamic, p.conflictErr
}
