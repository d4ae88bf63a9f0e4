// Package workload is the reference controller for scalable workloads,
// shaped like OpenKruise's CloneSet: it records a scale expectation for
// every pod it creates or deletes and skips reconciling while expectations
// are unsatisfied.
//
// Correct mode clears expectations that stay unsatisfied past the timeout
// and reconciles (the fix of openkruise/kruise#1829). Bugs:
//
//   - expectations-never-expire: past the timeout it only logs "Expectation
//     unsatisfied overtime" and returns, as before the fix (#1765). A pod
//     created and deleted while the watch was down, then hidden by a
//     relist, blocks the workload forever.
//   - no-expectations: records none and acts on a stale cache, creating
//     more pods than replicas when pod events are late.
package workload
