package subject

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/chaos"
	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
	"github.com/steadystate-dev/steadystate/subjectfile"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// referenceStack is the stack controller (refctl stack) as a subject,
// in the mode SUBJECT_BUG names. It binds the steady-state capability
// only: the other suites skip it. Binding picks one of its bindings: ""
// (stack), or one of the correct controller's bindings that once misled
// the judges (StackBindings).
type referenceStack struct{ binding string }

var _ SteadyStateController = referenceStack{}

// StackBindings are the stack controller's other bindings, each a subject of its own
// (stack-NAME), each for the correct mode only:
//   - unwatched: the only change is of an object the controller does not
//     watch (a Service): the harness's own write while a fault acts must
//     be one the controller sees, and a change that draws no write shows
//     nothing of a controller's liveness;
//   - templated: the change's merge patch names the run's cluster-scoped
//     Slot by its {{.Namespace}}-qualified name (a label value the API
//     server refuses unless the template is filled in).
var StackBindings = []string{"unwatched", "templated"}

func (s referenceStack) Name() string {
	if s.binding == "" {
		return "stack"
	}
	return "stack-" + s.binding
}

// Steady binds a Secret and a Stack that copies it: the Stack gets an
// owned configuration, an unowned mirror applied server-side, a ledger
// named from its uid, a copy of the Secret, a cluster-scoped Slot and an
// audit record in the namespace default. The changes give it a new tier,
// synced to every child, then rotate the Secret, copied to its own.
// The quiet window is the default's.
func (s referenceStack) Steady() *subjectfile.ReconciledObjects {
	b := &subjectfile.ReconciledObjects{
		Changes: []subjectfile.Change{
			{Patch: &subjectfile.PatchChange{
				Object: subjectfile.ObjectName{Kind: "Stack", Name: "steady"},
				Merge:  map[string]any{"spec": map[string]any{"tier": "large"}},
			}},
			{Patch: &subjectfile.PatchChange{
				Object: subjectfile.ObjectName{Kind: "Secret", Name: "stack-db"},
				Merge:  map[string]any{"stringData": map[string]any{"password": "stack-rotated-value"}},
			}},
		},
		SettleWithin: subjectfile.Duration{Duration: 20 * time.Second}, SettleWindow: subjectfile.Duration{Duration: 2 * time.Second},
		QuietWindow: subjectfile.Duration{Duration: subjectfile.DefaultQuietWindow}, GoneWithin: subjectfile.Duration{Duration: 20 * time.Second},
	}
	switch s.binding {
	case "unwatched":
		b.Changes = []subjectfile.Change{{Patch: &subjectfile.PatchChange{
			Object: subjectfile.ObjectName{Kind: "Service", Name: "unwatched"},
			Merge:  map[string]any{"metadata": map[string]any{"labels": map[string]any{"steadystate.dev/changed": "true"}}},
		}}}
	case "templated":
		b.Changes = []subjectfile.Change{{Patch: &subjectfile.PatchChange{
			Object: subjectfile.ObjectName{Kind: "Stack", Name: "steady"},
			Merge: map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"stack.reference.steadystate.dev/slot": "{{.Namespace}}-steady"}},
				"spec":     map[string]any{"tier": "large"},
			},
		}}}
	}
	return b
}

func (s referenceStack) SteadyObjects(ns string, _ subjectfile.Scope) ([]*unstructured.Unstructured, error) {
	secret := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata":   map[string]any{"name": "stack-db", "namespace": ns},
		"stringData": map[string]any{"password": "stack-initial-value"},
	}}
	stack := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": refv1.GroupVersion.String(), "kind": "Stack",
		"metadata": map[string]any{"name": "steady", "namespace": ns},
		"spec":     map[string]any{"tier": "small", "secretName": "stack-db"},
	}}
	objs := []*unstructured.Unstructured{secret, stack}
	if s.binding == "unwatched" {
		objs = append(objs, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Service",
			"metadata": map[string]any{"name": "unwatched", "namespace": ns},
			"spec":     map[string]any{"ports": []any{map[string]any{"name": "http", "port": int64(80)}}},
		}})
	}
	return objs, nil
}

// StartSteady runs one local process (or pod) for ns; its audit record
// goes to the namespace default whatever it watches.
func (referenceStack) StartSteady(ctx context.Context, spec *testenv.Spec, ns string) chaos.Target {
	return startRefctl(ctx, spec, nil, ns, "stack", 1, "--leader-elect=false", "--watch-namespace="+ns)
}
