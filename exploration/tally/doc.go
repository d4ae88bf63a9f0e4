// Package tally tells an exploration run's specs apart, as read from its
// report: a steadyState run's fault-free reference runs from its
// schedules, and where each spec's evidence and kept schedule are in the
// run's folder. It names those specs and that file for the exploration
// suite (suites/explore), which makes them, and for what counts them
// afterwards (the exploration's summary, the zoo's hunt and repro), which
// must not depend on the suite.
package tally
