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
package composite
