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
//
// No secret is recorded. Redacted is every object as a history keeps it:
// each value of a core Secret's data and stringData (and kubectl's
// last-applied annotation) and each secret-looking container environment
// value (SecretName) of any object become their Hash, an HMAC-SHA256 under
// a key of the run ("hmac-sha256:" and hex). The key is random, made once
// by the run's top process and handed to its suite processes in their
// environment only (KeyEnv, KeyEnviron, TakeKey); it is never written to a
// file, a log or a bundle, so a recorded hash cannot be matched against a
// dictionary, yet two equal values of a run hash equal. Judging offline
// compares recorded hashes with each other and needs no key.
package oracle
