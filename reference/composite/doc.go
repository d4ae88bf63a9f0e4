// Package composite is the reference controller for compositions, shaped
// like Crossplane: a Claim gets a Composite, the Composite owns a Managed
// (controller=true, blockOwnerDeletion=true), and the Managed mirrors a
// resource in the external system, keeping a provider finalizer until the
// external delete succeeds. A deleted Claim deletes its Composite with
// propagationPolicy=Foreground and keeps its own finalizer until the
// Composite is gone, so the garbage collector's foreground deletion decides
// how long it takes.
//
// The correct mode persists Ready=False/Deleting as soon as deletion
// starts, names the blocking Managed in the Claim's Ready message, and does
// not use an external resource whose previous owner is still deleting it.
// Bugs (crossplane/crossplane#5416 and its unfixed relatives):
//
//   - deleting-status-not-persisted: Deleting is set in memory only; the
//     stored Claim keeps Ready=True/Available for the whole deletion (a).
//   - no-blocking-reason: nothing on the Claim says why deletion hangs (b).
//   - external-name-reuse: a new Managed adopts the external resource its
//     deleting predecessor still owns; the old one then deletes it (c).
//
// And textbook bugs that only the reconcile suite's properties see:
//
//   - status-hot-loop: every reconcile stamps the Claim's Synced condition
//     with the time and writes status, changed or not, and a resync comes
//     every second: the controller never goes quiet.
//   - recreate-children-on-restart: the Claim's Composite is known only
//     from memory (made before the finalizer, so that a restart right
//     after the first write finds one); after a restart the Composite
//     found is deleted and made again, not adopted.
//   - release-finalizer-early: a deleted Claim's finalizer is released at
//     once, the Composite's deletion left for a next pass that never
//     comes: the Composite and its Managed stay behind.
//   - delete-orphans-from-cache: Claims are read fresh, but for one
//     check: each Composite, polled every second, copies its Claim's
//     labels from a fresh read of the Claim and is deleted as an orphan
//     when the informer cache lists no Claim of its name with those
//     labels. While the cache is behind (a stale view, missed events), a
//     Composite whose Claim exists is deleted and made again.
//   - skip-changes-on-relist: Claims come from a watch loop of its own,
//     which takes every list after the first as already handled: a change
//     of the Claim's spec whose event was lost before a relist is never
//     synced, and the Claim never observes it (in progress for good).
//
// A Claim's tier, a change of its spec, is synced down to its Composite
// and Managed; the status and every condition carry the generation they
// observed.
package composite
