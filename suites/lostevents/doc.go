// Package lostevents is the conformance suite for the OpenKruise CloneSet
// bug class: a controller whose watch drops events and is forced to relist
// must still converge. The subject is any scalable workload
// (subject.Scalable: refctl workload by default, Kubernetes' ReplicaSet
// controller with SUBJECT=replicaset, a vendor's through SUBJECT_FILE)
// behind the fault proxy; other subjects skip the suite.
//
// Scenarios: a pod created and deleted while the pod watch is stalled,
// hidden by a forced 410 relist (status must converge within the
// expectation timeout plus a margin, and a later scale change must be acted
// on within 30s); late pod events (the controller must never run more pods
// than replicas); a stalled watch that resumes; a pod deletion storm.
package lostevents
