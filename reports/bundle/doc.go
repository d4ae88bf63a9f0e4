// Package bundle writes and opens conformance results bundles: one
// .tar.gz holding a run's reports (JUnit, Ginkgo's JSON report with the
// property records), each failing spec's evidence, the subject file, a
// summary and a manifest with the sha256 of every file and the versions
// of what ran, so that anyone can check the bundle and re-judge its
// verdicts offline (`steadystate verify`).
package bundle
