package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StackSpec is the desired state of a Stack.
type StackSpec struct {
	// Tier is the class of the stack, copied to every child: a change of
	// it is a change of spec to sync.
	// +optional
	Tier string `json:"tier,omitempty"`
	// SecretName names a Secret of the Stack's namespace whose data the
	// controller copies into the Stack's credentials Secret.
	// +optional
	SecretName string `json:"secretName,omitempty"`
	// SlotName names the Stack's cluster-scoped Slot. The controller
	// fills it in once the Slot is made, as a claim names the resource
	// bound to it: a field of the user's object that the controller owns.
	// +optional
	SlotName string `json:"slotName,omitempty"`
}

// StackStatus is the observed state of a Stack.
type StackStatus struct {
	// ObservedGeneration is the generation of the spec the status was
	// decided from.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Tier is the tier the children were last brought to.
	// +optional
	Tier string `json:"tier,omitempty"`
	// ConfigUID is the uid of the Stack's configuration ConfigMap.
	// +optional
	ConfigUID string `json:"configUID,omitempty"`
	// Conditions are Ready, Available and Synced, each with the
	// generation it observed.
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Stack is an application stack: the controller gives it configuration
// ConfigMaps (one owned, one applied server-side without an owner, one
// named from its uid), a credentials Secret copied from another Secret, a
// cluster-scoped Slot and an audit record in another namespace.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Tier",type=string,JSONPath=".spec.tier"
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=".status.conditions[?(@.type=='Ready')].status"
type Stack struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   StackSpec   `json:"spec,omitempty"`
	Status StackStatus `json:"status,omitempty"`
}

// StackList is a list of Stacks.
//
// +kubebuilder:object:root=true
type StackList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Stack `json:"items"`
}

// SlotSpec is what a Slot holds for its Stack.
type SlotSpec struct {
	// Tier is the Stack's tier.
	// +optional
	Tier string `json:"tier,omitempty"`
	// Stack names the Stack the Slot is for, as namespace/name.
	// +optional
	Stack string `json:"stack,omitempty"`
}

// Slot is a cluster-scoped reservation the Stack controller makes for
// each Stack, named <namespace>-<name>, with no ownerReference (a
// namespaced owner cannot own a cluster-scoped object): the controller
// deletes it itself.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
// +kubebuilder:printcolumn:name="Stack",type=string,JSONPath=".spec.stack"
type Slot struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec SlotSpec `json:"spec,omitempty"`
}

// SlotList is a list of Slots.
//
// +kubebuilder:object:root=true
type SlotList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Slot `json:"items"`
}
