// Package phases tells where an exploration schedule's time went: the five
// phases a schedule passes through (set-up, steps, convergence, judging,
// tear-down), read back from the report entries the exploration suite
// (suites/explore) adds to a schedule's spec as it enters each, and the
// median time per phase over a run's schedules with each phase's share.
// The suite marks the phases and prints a schedule's times on its status
// line; the exploration's summary reads them from the run's report, which
// it does without the suite.
package phases
