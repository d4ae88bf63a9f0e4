// Package finalizer is the conformance suite for the finalizer race between
// a mover and a controller (Cluster API's clusterctl move bug class). It
// moves resources from the suite's cluster to a second local cluster and
// back, and checks the properties of docs/design.md's finalizer-race class:
// P1 every source object is gone within 30s of the mover finishing, each
// way; P3 the controller never tries to add its finalizer to an object being
// deleted (the API server's 422); P4 a paused object that gets a
// deletionTimestamp causes no external cleanup. The subject is a
// subject.MovableResource: refctl cluster plus refctl move, SUBJECT_BUG
// going to the one it belongs to; other subjects skip the suite.
package finalizer
