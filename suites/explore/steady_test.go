package explore

import (
	"testing"

	"github.com/steadystate-dev/steadystate/judge"
)

// A steadyState schedule's owned role is the resource of what the
// applied objects own directly in the reference run: a Deployment's
// ReplicaSets, not the pods those own in turn; nothing owned, none.
func TestOwnedResource(t *testing.T) {
	owner := func(uid string) map[string]any {
		return map[string]any{"uid": uid, "ownerReferences": []any{map[string]any{"uid": uid + "-owner"}}}
	}
	deployment := &judge.EndState{
		Roots: []string{"steady/deployments.apps:ns/web"},
		Objects: map[string]map[string]any{
			"steady/deployments.apps:ns/web":    {"metadata": map[string]any{"uid": "d"}},
			"steady/replicasets.apps:ns/web-1":  {"metadata": map[string]any{"uid": "rs1", "ownerReferences": []any{map[string]any{"uid": "d"}}}},
			"steady/replicasets.apps:ns/web-2":  {"metadata": map[string]any{"uid": "rs2", "ownerReferences": []any{map[string]any{"uid": "d"}}}},
			"steady/pods:ns/web-1-a":            {"metadata": map[string]any{"uid": "p1", "ownerReferences": []any{map[string]any{"uid": "rs1"}}}},
			"steady/pods:ns/web-1-b":            {"metadata": map[string]any{"uid": "p2", "ownerReferences": []any{map[string]any{"uid": "rs1"}}}},
			"steady/pods:ns/web-1-c":            {"metadata": map[string]any{"uid": "p3", "ownerReferences": []any{map[string]any{"uid": "rs1"}}}},
			"steady/configmaps:ns/not-owned-by": {"metadata": owner("c")},
		},
	}
	if got := ownedResource(deployment); got != "replicasets" {
		t.Errorf("a Deployment's owned resource is %q, want replicasets", got)
	}
	alone := &judge.EndState{Roots: []string{"steady/services:ns/web"}, Objects: map[string]map[string]any{"steady/services:ns/web": {"metadata": map[string]any{"uid": "s"}}}}
	if got := ownedResource(alone); got != "" {
		t.Errorf("objects that own nothing own %q, want none", got)
	}
	if got := keyResource("steady/pods:ns/web-1-a"); got != "pods" {
		t.Errorf("keyResource of a core pod: %q", got)
	}
}
