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

// SteadyBinding is where a subject file binds the steady-state
// capability.
const SteadyBinding = "capabilities.reconciledObjects"

// SteadyStateController is any controller, bound by the objects it
// reconciles: the reconcile suite applies them and judges what the
// controller makes of them.
type SteadyStateController interface {
	Subject
	// Steady is the binding, nil when the subject has none.
	Steady() *subjectfile.ReconciledObjects
	// SteadyObjects are the binding's objects for namespace ns, each
	// set into it or, of a cluster-scoped kind (scope), into none.
	SteadyObjects(ns string, scope subjectfile.Scope) ([]*unstructured.Unstructured, error)
	// StartSteady runs one replica for namespace ns.
	StartSteady(ctx context.Context, spec *testenv.Spec, ns string) chaos.Target
}

var (
	_ SteadyStateController = referenceComposite{}
	_ SteadyStateController = (*fileSubject)(nil)
)

// Steady is the selected subject as a steady-state controller, or skips
// the spec when it binds no reconciledObjects. The reference is the composite
// controller with one Claim.
func Steady() SteadyStateController {
	return capability(SteadyStateController(referenceComposite{}), "steady-state controller", SteadyBinding,
		func(s SteadyStateController) bool { return s.Steady() != nil })
}

func (s *fileSubject) Steady() *subjectfile.ReconciledObjects {
	return s.f.Capabilities.ReconciledObjects
}

func (s *fileSubject) SteadyObjects(ns string, scope subjectfile.Scope) ([]*unstructured.Unstructured, error) {
	v := s.f.Static()
	v.Namespace = ns
	return s.f.SteadyObjects(v, scope)
}

func (s *fileSubject) StartSteady(ctx context.Context, spec *testenv.Spec, ns string) chaos.Target {
	return s.start(ctx, spec, ns, 1, nil)
}

// Steady binds one Claim: the Claim gets a Composite, which owns a
// Managed backed by the harness's external system; a later change renames
// nothing, it labels the Claim and changes its tier, a setting the
// controllers sync down to the Composite and the Managed (the Claim's
// conditions then observe its new generation).
func (referenceComposite) Steady() *subjectfile.ReconciledObjects {
	return &subjectfile.ReconciledObjects{
		Changes: []subjectfile.Change{{Patch: &subjectfile.PatchChange{
			Object: subjectfile.ObjectName{Kind: "Claim", Name: "steady"},
			Merge: map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"steadystate.dev/changed": "true"}},
				"spec":     map[string]any{"tier": "large"},
			},
		}}},
		SettleWithin: subjectfile.Duration{Duration: 30 * time.Second}, SettleWindow: subjectfile.Duration{Duration: 2 * time.Second},
		QuietWindow: subjectfile.Duration{Duration: subjectfile.MinQuietWindow}, GoneWithin: subjectfile.Duration{Duration: 30 * time.Second},
	}
}

func (referenceComposite) SteadyObjects(ns string, _ subjectfile.Scope) ([]*unstructured.Unstructured, error) {
	claim := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": refv1.GroupVersion.String(), "kind": "Claim",
		"metadata": map[string]any{"name": "steady", "namespace": ns},
		"spec":     map[string]any{"externalName": "steady-" + ns},
	}}
	return []*unstructured.Unstructured{claim}, nil
}

func (c referenceComposite) StartSteady(ctx context.Context, spec *testenv.Spec, ns string) chaos.Target {
	t, _ := c.StartComposite(ctx, spec, ns)
	return t
}
