// Package capi is the reference controller for pausable, finalized
// resources, shaped like Cluster API's cluster controller: Reconcile
// ensures its finalizer first (#11286), then honours spec.paused with a
// Paused condition, and runs external cleanup in reconcileDelete. External
// cleanup is recorded as a ConfigMap labelled with the object's name and
// UID, so tests can tell whether it happened.
//
// Bugs:
//
//   - finalizer-while-deleting: EnsureFinalizer without the
//     deletionTimestamp guard; on an object that is being deleted and still
//     has another finalizer, the API server answers 422 "no new finalizers
//     can be added if the object is being deleted".
//   - cleanup-while-paused: reconcileDelete runs before the paused check, so
//     a paused object that gets a deletionTimestamp (as clusterctl move
//     deletes the source) triggers external cleanup.
package capi
