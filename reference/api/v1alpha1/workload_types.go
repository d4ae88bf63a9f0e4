package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WorkloadSpec is the desired state of a Workload.
type WorkloadSpec struct {
	// Replicas is the number of pods wanted.
	// +kubebuilder:validation:Minimum=0
	Replicas int32 `json:"replicas"`
	// Template is the pod template; its labels must select the pods.
	Template corev1.PodTemplateSpec `json:"template"`
}

// WorkloadStatus is the observed state of a Workload.
type WorkloadStatus struct {
	// Replicas counts the pods the controller owns and that are not deleting.
	Replicas int32 `json:"replicas"`
	// ObservedGeneration is the spec generation the status reflects.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// Workload owns Replicas pods, like an OpenKruise CloneSet.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=".spec.replicas"
// +kubebuilder:printcolumn:name="Current",type=integer,JSONPath=".status.replicas"
type Workload struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WorkloadSpec   `json:"spec"`
	Status WorkloadStatus `json:"status,omitempty"`
}

// WorkloadList is a list of Workloads.
//
// +kubebuilder:object:root=true
type WorkloadList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Workload `json:"items"`
}
