// Package subjectfile is the subject file format: a versioned YAML file that
// describes a controller steadystate did not write, so the suites can run it
// and drive it. It says how to run the controller (a command, started once
// per replica with a kubeconfig that points at that replica's fault proxy)
// and binds the capabilities the suites test: a scalable workload (its
// resource, an object template and the field paths of desired and observed
// replicas), a leader-elected manager (its Lease and timings), and, since
// v1alpha2, a foreground-deleted claim (its resource, template and how the
// harness holds up what it owns) and a movable resource (its finalizer,
// pause flag and mover). Since v1alpha2 a file may also say how a replica
// runs in a pod (run.pod: an image, or a static binary the harness packs
// into one, and the arguments and environment filled in with the pod's
// values). v1alpha3 adds the steady-state binding every controller has:
// the objects it reconciles, later changes to them, how ready is decided,
// and what it may leave behind. A v1alpha1 or v1alpha2 file still reads;
// it moves to v1alpha3 by changing its apiVersion.
//
// Load reads and validates a file. Every problem is an *Error naming the
// subject, the field and what is expected, so a vendor can fix the file
// without reading the harness.
//
//	apiVersion: steadystate.dev/v1alpha3
//	kind: Subject
//	name: replicaset
//	run:
//	  command: ["{{.KubeBinDir}}/kube-controller-manager", "--kubeconfig={{.Kubeconfig}}", ...]
//	capabilities:
//	  scalableWorkload:
//	    resource: replicasets
//	    template: {apiVersion: apps/v1, kind: ReplicaSet, spec: {...}}
//	    replicasPath: spec.replicas
//	    statusReplicasPath: status.replicas
package subjectfile
