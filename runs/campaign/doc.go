// Package campaign runs an exploration campaign larger than one machine:
// a Kubernetes Indexed Job on an existing cluster, in the image conform
// runs in, each of whose indices explores its own range of seeds
// (exploration, one run per seed) and leaves its results in a folder of
// its own; and gathers every index's folder into one results bundle
// (reports/bundle) whose manifest says which indices it holds and which
// are missing, so that `steadystate verify` re-judges it and refuses to
// call an incomplete campaign complete.
package campaign
