// Package conformance is a vendor's conformance run of one subject file:
// every suite its capabilities allow, once (matrix cells of a run of one),
// on local, kind or an existing cluster, every spec keeping its evidence,
// and one results bundle (reports/bundle) with a summary, a manifest
// naming what ran (steadystate's version, the provider and Kubernetes, the
// subject's programs by digest) and the digest to publish apart from it.
package conformance
