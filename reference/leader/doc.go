// Package leader is the reference controller for leader-only work, shaped
// like a controller-runtime manager: a leader-only runnable that writes a
// marker tagged with its identity the moment it starts and then a heartbeat,
// and a leader-only reconciler.
//
// Bugs:
//
//   - start-leader-runnables-on-shutdown: a replica that never won the
//     election starts its leader-only runnables while shutting down, so the
//     marker is written by a non-leader. This is the observable effect of
//     controller-runtime v0.11.0-v0.17.2 (issue #2719): on shutdown
//     runnableGroup.StopAndWait called Start on the leader-election group,
//     which had never started on a non-leader, running every leader-only
//     runnable briefly; fixed in v0.18.0 (#2724) and v0.17.3 (#2752).
//   - ignore-lost-lease: after losing the Lease it keeps doing leader-only
//     work instead of exiting, so two replicas write at once.
package leader
