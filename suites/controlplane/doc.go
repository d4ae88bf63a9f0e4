// Package controlplane checks that the cluster under the suites is real,
// judged as properties like every suite's (catalog: controlplane/*):
// kube-controller-manager's ReplicaSet controller scales a ReplicaSet up
// and down (controlplane/replicaset-scales-up, -scales-down), and its
// garbage collector holds a foreground-deleted owner while a blocking
// dependent remains and removes it once none does (controlplane/gc-holds-owner,
// gc-removes-owner). Every other suite relies on both.
package controlplane
