// Package bundle writes and opens conformance results bundles: one
// .tar.gz holding a run's reports (JUnit, Ginkgo's JSON report with the
// property records), every spec's evidence, the subject file, a summary
// and a manifest with the sha256 of every file and the versions of what
// ran, so that anyone can check the bundle and re-judge its verdicts
// offline (`steadystate verify`). The manifest's own sha256, published
// apart from the bundle, pins the whole of it.
package bundle
