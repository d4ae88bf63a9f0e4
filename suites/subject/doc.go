// Package subject gives the suites the controller under test through small
// capability interfaces, the way Kubernetes' storage test framework gives
// drivers to its suites: a scalable workload, a leader-elected manager, a
// movable finalized resource, a foreground-deleted composite. A suite asks
// for its capability (Scalable, LeaderElected, Movable, Composite) and is
// skipped, never failed, when the selected subject lacks it.
//
// The subject is chosen by the environment:
//
//   - SUBJECT_FILE: a subject file (package subjectfile) for a controller
//     steadystate did not write;
//   - SUBJECT: a built-in subject: workload, leader, cluster, composite (the
//     reference controllers, SUBJECT_BUG picking a seeded bug) or
//     replicaset (Kubernetes' ReplicaSet controller, fixtures/subjects);
//   - neither: each suite's own reference controller, in its correct mode.
//
// Locally every replica is a process behind its own fault proxy; the chaos
// target a Start method returns reaches both.
package subject
