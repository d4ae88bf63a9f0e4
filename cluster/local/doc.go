// Package local runs a Kubernetes control plane as child processes on
// loopback: etcd, kube-apiserver and kube-controller-manager, built from
// source and cached per version (kube-bins.sh, which BuildBinaries runs).
//
// It is steadystate's embedded default cluster. It needs no Docker, comes up
// in a few seconds, and has a real garbage collector (foreground deletion)
// and real workload controllers. Every process it starts is stopped by
// Cluster.Stop, and dies with the harness if the harness is killed: children
// are started with a parent-death signal.
package local
