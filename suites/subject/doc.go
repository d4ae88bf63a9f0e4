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
//   - SUBJECT: a built-in subject: workload, leader, cluster, composite,
//     stack (the reference controllers, SUBJECT_BUG picking a seeded bug;
//     stack binds the steady-state capability only) or replicaset
//     (Kubernetes' ReplicaSet controller, fixtures/subjects);
//   - neither: each suite's own reference controller, in its correct mode.
//
// Every replica runs behind its own fault proxy, limited to the spec's
// namespace: as a local process, or (SUBJECT_PLACEMENT=pods, the default
// on kind) as a pod of a Deployment with the proxy as a sidecar, driven
// through the API server's pod proxy subresource (refctl's image, or a
// subject file's run.pod). The chaos target a Start method returns reaches
// replicas and proxies either way.
//
// Only this package's reference driver imports the reference controllers:
// what a suite needs from the reference's external system (refusing and
// slowing deletes, who owns an external name) is the ExternalSystem
// capability.
package subject
