// Package reconcile is the conformance suite for any controller, judged
// without properties written for it: the subject binds the objects it
// reconciles (capabilities.reconciledObjects); the suite applies them, applies
// each later change once the state has settled, and judges from the
// recorded histories and the controller's proxy log that everything
// settles (kstatus readiness, or the subject's override, of the objects
// and everything they own), that a settled controller stops writing, that
// deleting the objects leaves nothing behind, that it never adds a
// finalizer to a deleting object, and that after a fault it settles again
// and ends, without churning objects, in the end state of the suite run's
// two fault-free runs (its first two specs).
//
// The faults (specs.go, faults.go): a restart right after its first
// write; and, after Sieve's patterns, once the objects have settled and
// around another party's write (the next change, or, with none bound, the
// deletion of an object of the controller's own), a stale view (its
// watches of the objects and of what they own stalled through the write,
// then resumed), missed events (the write's event dropped, then a forced
// 410 relist) and refused writes (its writes answered 429, then 500, then
// 409). Each fault's premise, judged from the fault timeline and the
// proxy log, says that it acted: a fault that did not makes the spec an
// error, never a pass or a finding.
package reconcile
