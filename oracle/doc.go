// Package oracle judges a scenario from what was recorded, not from a
// snapshot at the end: a History of every watch event with its time
// (recorded with a watch that resumes without loss, or marked incomplete),
// a Convergence check (eventual stable reconciliation: once the desired
// state stops changing, the observed state matches it within T and keeps
// matching for a window W), and invariants checked over the whole history.
//
// Validate evaluates a scenario's checks in the order that makes failures
// meaningful: the scenario's assumptions first (did the fault happen, was
// the controller healthy before it), then convergence, then the
// invariants, every one of them, and returns one verdict.Record per
// property: the verdict travels as data.
package oracle
