// Package v1alpha1 holds the API of steadystate's reference controllers:
// Workload (a CloneSet-shaped scalable workload), Cluster (a Cluster
// API-shaped pausable, finalized resource), Claim, Composite and Managed (a
// Crossplane-shaped composition), and Stack and its cluster-scoped Slot (an
// operator's application stack, with children of every kind of ownership).
//
// +kubebuilder:object:generate=true
// +groupName=reference.steadystate.dev
package v1alpha1
