// Package verdict is how steadystate's judgements travel as data. A check
// of a scenario yields a Record: which property (a stable id and the
// guarantee in words), at which stage (assumption, convergence, invariant),
// whether it held, broke, was not evaluated or is not bound (the subject's
// binding gives no means to judge it) and why, and the figures it
// measured. Suites attach records to Ginkgo's report (AddReportEntry); the
// self-test, `steadystate validate` and the reports read them back from
// Ginkgo's JSON report as types.Report, never by parsing failure text.
//
// Each spec declares the properties it must judge as Ginkgo labels
// (Declaration: "judges:<suite>:<name>"), so the declaration is in the
// report even when the spec never reached its checks.
//
// Classify turns one spec's report into an Outcome: passed (every
// declared property recorded, every record held or not bound), broken
// (one or more named properties broke: the only outcome that is a
// finding), error (setup failed, the subject crashed, a timeout outside a
// property, a panic, an assumption that did not hold, evidence with holes,
// a declared property with no record, a record that does not read back)
// or skipped (with its reason).
package verdict
