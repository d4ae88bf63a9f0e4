// Package progress is what a suite process tells the process that runs
// it while its specs run: one JSON Event per line (which spec of how many
// is running, each fault as it starts and ends, a status line a suite
// composes, its peak memory). The suites send them (suites/testenv);
// the runners read and print them (matrix), without the suites' test
// framework.
package progress
