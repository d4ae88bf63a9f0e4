// Package cli is steadystate's small command-line layer over the flag
// package: a command's flag set with its usage and flags as help (-h and
// --help succeed, printing them), usage errors marked as such, where a
// flag's value came from (the flag or the environment variable that is its
// default), and comma-separated lists checked against their valid items.
// It also holds the exit codes: the kinds a command's failure is marked
// with (a finding, a harness error, input refused, gaps refused) and the
// one mapping from an error to its code (ExitCode).
package cli
