// Package exploration runs the exploration suite (suites/explore) against
// one subject from outside it, in a child process (a matrix cell of one):
// seeded random fault schedules within a budget, or a kept schedule
// replayed, or shrunk by the shrink policy (exploration/shrink). It prints each
// finding with the schedule kept beside its evidence, and fails on a
// finding, on a schedule that ended in an error, and on a run in which no
// schedule ran. It reads the suite's report through packages tally and
// phases and never imports the suite.
package exploration
