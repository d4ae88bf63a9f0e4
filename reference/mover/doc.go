// Package mover moves Clusters from one API server to another the way
// clusterctl move does: pause every source object, create it on the
// target, delete it from the source, unpause on the target.
//
// The correct delete order (cluster-api#11814) is annotate, DELETE, then
// strip the finalizers the fetched copy had. The strip-then-delete bug is
// the order before it: annotate, strip finalizers, DELETE. Between the strip
// and the DELETE the object has no finalizer and no deletionTimestamp; the
// controller, woken by the strip, re-adds its finalizer before checking
// spec.paused, the DELETE then only sets a deletionTimestamp, and the
// paused object is never cleaned up: it is stuck (cluster-api#11812).
// StepDelay stands for the latency between the mover's requests and makes
// that window wide enough to hit every time.
package mover
