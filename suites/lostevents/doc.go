// Package lostevents is the conformance suite for the OpenKruise CloneSet
// bug class: a controller whose watch drops events and is forced to relist
// must still converge. The subject is a scalable workload behind the fault
// proxy; today that is refctl workload, in the mode SUBJECT_BUG names
// (empty: the correct mode).
//
// Scenarios: a pod created and deleted while the pod watch is stalled,
// hidden by a forced 410 relist (status must converge within the
// expectation timeout plus a margin, and a later scale change must be acted
// on within 30s); and late pod events (the controller must never run more
// pods than replicas).
package lostevents
