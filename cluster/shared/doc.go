// Package shared lets the processes of one run use one cluster. The owner
// starts it with any provider and publishes its kubeconfig in a folder
// the processes share; each guest registers there, waits for the
// kubeconfig, uses the cluster and says when it leaves. The owner tears
// the cluster down only once every guest that registered has left or is
// gone, and a guest that comes after the owner closed the cluster, or
// whose owner could not start it, fails with the reason.
//
// The folder holds kubeconfig (written once the cluster is up), failed
// (why it did not come up), closed (the owner is tearing it down), and per
// guest guest-PID (registered) and left-PID (left).
package shared
