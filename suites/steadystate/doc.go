// Package steadystate is the conformance suite for any controller, judged
// without properties written for it: the subject binds the objects it
// reconciles (capabilities.steadyState); the suite applies them, applies
// each later change once the state has settled, and judges from the
// recorded histories and the controller's proxy log that everything
// settles (kstatus readiness, or the subject's override, of the objects
// and everything they own), that a settled controller stops writing, that
// deleting the objects leaves nothing behind, that it never adds a
// finalizer to a deleting object, and that after a restart right after its
// first write it settles again and ends, without churning objects, in the
// end state of the suite run's two fault-free runs (its first two specs).
package steadystate
