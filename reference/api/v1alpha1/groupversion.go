package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the API's group and version.
var GroupVersion = schema.GroupVersion{Group: "reference.steadystate.dev", Version: "v1alpha1"}

// AddToScheme registers every kind of this package in s.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion,
		&Workload{}, &WorkloadList{}, &Cluster{}, &ClusterList{},
		&Claim{}, &ClaimList{}, &Composite{}, &CompositeList{}, &Managed{}, &ManagedList{},
		&Stack{}, &StackList{}, &Slot{}, &SlotList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
