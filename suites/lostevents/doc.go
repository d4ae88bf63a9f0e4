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
//
// The workload converges when its status and its live pods, counted from
// the recorded pod history, both match the desired replicas. A spec whose
// workload never converges before the fault stops there, an error naming
// the premise (Workload.Healthy). The others wait for their convergences
// first, then judge every premise and property together on the evidence
// as it then is (Awaited, testenv.Spec.Verify): the lost pod withheld, the
// delay's or the stall's rule matched at least once.
package lostevents
