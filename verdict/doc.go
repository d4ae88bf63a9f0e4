// Package verdict is how steadystate's judgements travel as data. A check
// of a scenario yields a Record: which property (a stable id and the
// guarantee in words), at which stage (assumption, convergence, invariant),
// whether it held, broke or was not evaluated and why, and the figures it
// measured. Suites attach records to Ginkgo's report (AddReportEntry); the
// self-test, `steadystate validate` and the reports read them back from
// Ginkgo's JSON report as types.Report, never by parsing failure text.
//
// Classify turns one spec's report into an Outcome: passed (every property
// held), broken (one or more named properties broke: the only outcome that
// is a finding), error (setup failed, the subject crashed, a timeout outside
// a property, a panic, an assumption that did not hold, evidence with
// holes) or skipped (with its reason).
package verdict
