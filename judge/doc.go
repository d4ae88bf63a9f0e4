// Package judge judges every property of the catalog from recorded
// evidence alone: the invariants from histories and proxy logs, the
// premises about faults from the fault timeline, and each convergence from
// the Bound the spec recorded (when the desired state changed, T, W, the
// history and the wanted state, Want), replayed as it was judged live once
// T and W had passed. The suites call these judges through Offline on
// their live evidence, and `steadystate validate` calls the same functions
// on a failure's evidence.json with no cluster, so a verdict can be
// checked by anyone who has the artifacts.
package judge
