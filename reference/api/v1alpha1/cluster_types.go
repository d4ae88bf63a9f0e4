package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ClusterSpec is the desired state of a Cluster.
type ClusterSpec struct {
	// Paused stops reconciliation, as Cluster API's spec.paused does while
	// clusterctl move runs.
	Paused bool `json:"paused,omitempty"`
	// Endpoint is an opaque value copied by the mover, to show the object
	// arrived whole.
	Endpoint string `json:"endpoint,omitempty"`
}

// ClusterStatus is the observed state of a Cluster.
type ClusterStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Cluster is a Cluster API-shaped resource: finalized early in reconcile,
// pausable, with external cleanup on deletion.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Paused",type=boolean,JSONPath=".spec.paused"
type Cluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ClusterSpec   `json:"spec,omitempty"`
	Status ClusterStatus `json:"status,omitempty"`
}

// ClusterList is a list of Clusters.
//
// +kubebuilder:object:root=true
type ClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Cluster `json:"items"`
}
