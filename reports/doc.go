// Package reports turns what a run recorded into what people and CI read:
// summaries of Ginkgo's JUnit files, the self-test matrix (cells from the
// catalog, judged from the property records in Ginkgo's JSON report: a bug
// mode is caught only when exactly its declared properties broke, every
// run), and the catalog's tables for docs/properties.md.
package reports
