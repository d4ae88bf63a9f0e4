// Package foreground is the conformance suite for foreground-deleted
// composites (the Crossplane claim bug class): while a deletion is blocked
// by a managed resource the external system will not delete, the claim must
// say so truthfully (Ready=False, reason Deleting, within 5s) and name the
// blocker (within 15s), and the deletion must complete once unblocked; a
// new claim for an external name its predecessor is still deleting must
// never have the predecessor delete what it uses.
package foreground
