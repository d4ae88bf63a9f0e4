// Package tally tells an exploration run's specs apart, as read from its
// report: a reconciledObjects run's fault-free reference runs from its
// schedules, where each spec's evidence and kept schedule are in the
// run's folder, and a schedule's steps that were not done (their trigger
// never came, their replica was not there). It names those specs, that
// file and that report entry for the exploration suite (suites/explore),
// which makes them, and for what counts them afterwards (the
// exploration's summary, the zoo's hunt and repro), which must not depend
// on the suite.
package tally
