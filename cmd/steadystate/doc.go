// Command steadystate runs the conformance suites and the chaos harness:
// conform, selftest, upstream and explore run suites against subjects (each
// cell in a child process, package matrix); suite runs one suite in this
// process and e2e every suite, each in a child (package suites/e2e);
// verify and validate re-judge verdicts offline (package rejudge); report,
// junit and html summarise runs; cluster keeps a local cluster up by hand.
// `steadystate help` prints the usage, `steadystate COMMAND -h` a command's
// flags. This package holds only the flags and the wiring: the settings are
// read once (package internal/config) and passed down.
package main
