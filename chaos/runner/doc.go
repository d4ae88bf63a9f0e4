// Package runner runs a subject's replicas, each talking to the API server
// through its own fault proxy, so that every replica's requests are
// recorded and can be faulted. Two placements:
//
//   - Start: local processes (refctl for the reference controllers, or any
//     command, a subject file's), each with a proxy in this process;
//   - StartPods: a Deployment on the cluster, each pod with the fault proxy
//     as a native sidecar, read through the API server's pod proxy
//     subresource.
//
// Either way a replica is a chaos.Replica whose Host (chaos.ProcessHost or
// chaos.PodHost) is what process faults act on: kill, terminate, restart
// where the placement can, exited, log. It is harness code; the reference
// controllers are one thing it runs.
package runner
