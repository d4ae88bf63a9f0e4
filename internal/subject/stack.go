package subject

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/steadystate-dev/steadystate/chaos"
	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
	"github.com/steadystate-dev/steadystate/subjectfile"
)

// referenceStack is the stack controller (refctl stack) as a subject,
// in the mode SUBJECT_BUG names. It binds the steady-state capability
// only: the other suites skip it.
type referenceStack struct{}

var _ SteadyStateController = referenceStack{}

func (referenceStack) Name() string { return "stack" }

// Steady binds a Secret and a Stack that copies it: the Stack gets an
// owned configuration, an unowned mirror applied server-side, a ledger
// named from its uid, a copy of the Secret, a cluster-scoped Slot and an
// audit record in the namespace default. The changes give it a new tier,
// synced to every child, then rotate the Secret, copied to its own.
// The quiet window is the default's.
func (referenceStack) Steady() *subjectfile.SteadyState {
	return &subjectfile.SteadyState{
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
}

func (referenceStack) SteadyObjects(ns string, _ subjectfile.Scope) ([]*unstructured.Unstructured, error) {
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
	return []*unstructured.Unstructured{secret, stack}, nil
}

// StartSteady runs one local process (or pod) for ns; its audit record
// goes to the namespace default whatever it watches.
func (referenceStack) StartSteady(ctx context.Context, ns string) chaos.Target {
	return startRefctl(ctx, nil, ns, "stack", 1, "--leader-elect=false", "--watch-namespace="+ns)
}
