package composite

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
)

// set updates one condition and reports whether anything changed. The
// status and the condition say which generation of the spec they were
// decided from, so a change of spec is acknowledged (and, until it is,
// the object is in progress).
func set(s *refv1.ConditionedStatus, generation int64, typ string, status metav1.ConditionStatus, reason, message string) bool {
	observed := s.ObservedGeneration == generation
	s.ObservedGeneration = generation
	old := meta.FindStatusCondition(s.Conditions, typ)
	if observed && old != nil && old.Status == status && old.Reason == reason && old.Message == message && old.ObservedGeneration == generation {
		return false
	}
	meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: typ, Status: status, Reason: reason, Message: message, ObservedGeneration: generation})
	return true
}

// ready reports whether the Ready condition is True.
func ready(s refv1.ConditionedStatus) bool {
	return meta.IsStatusConditionTrue(s.Conditions, refv1.TypeReady)
}
