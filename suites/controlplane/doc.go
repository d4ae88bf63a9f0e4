// Package controlplane checks that the cluster under the suites is real: that
// kube-controller-manager's ReplicaSet controller converges a ReplicaSet and
// that its garbage collector completes a foreground deletion held up by a
// blocking dependent. Every other suite relies on both.
package controlplane
