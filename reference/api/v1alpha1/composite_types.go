package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ExternalSpec names the resource in the external system.
type ExternalSpec struct {
	// ExternalName is the key of the external resource.
	// +kubebuilder:validation:MinLength=1
	ExternalName string `json:"externalName"`
	// Tier is the class of the external resource, a setting the
	// controllers pass down from the Claim to its Composite and Managed:
	// a change of it is a change of spec to sync.
	// +optional
	Tier string `json:"tier,omitempty"`
}

// ConditionedStatus carries Ready and Synced conditions.
type ConditionedStatus struct {
	// ObservedGeneration is the generation of the spec the status was
	// decided from: while it is behind metadata.generation, the object
	// is in progress (kstatus reads it so).
	// +optional
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
}

// Claim is what a user creates, like a Crossplane claim: the controller
// makes a Composite for it and deletes that in the foreground.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=".status.conditions[?(@.type=='Ready')].reason"
type Claim struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ExternalSpec      `json:"spec"`
	Status ConditionedStatus `json:"status,omitempty"`
}

// ClaimList is a list of Claims.
//
// +kubebuilder:object:root=true
type ClaimList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Claim `json:"items"`
}

// Composite is a claim's composite resource; it owns one Managed with
// controller=true and blockOwnerDeletion=true.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Composite struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ExternalSpec      `json:"spec"`
	Status ConditionedStatus `json:"status,omitempty"`
}

// CompositeList is a list of Composites.
//
// +kubebuilder:object:root=true
type CompositeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Composite `json:"items"`
}

// Managed mirrors one resource in the external system and keeps a provider
// finalizer until the external delete succeeds.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Managed struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ExternalSpec      `json:"spec"`
	Status ConditionedStatus `json:"status,omitempty"`
}

// ManagedList is a list of Managed resources.
//
// +kubebuilder:object:root=true
type ManagedList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Managed `json:"items"`
}
