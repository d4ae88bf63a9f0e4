// Package leader is the conformance suite for leader-elected managers (the
// controller-runtime bug class): failover after the holder is killed, a
// non-leader's graceful shutdown, and a partitioned leader. Its safety
// property is judged black-box, for any controller: every successful write
// a replica makes (from its fault proxy's log) must happen while that
// replica holds a valid Lease (from the Lease's recorded history).
package leader
