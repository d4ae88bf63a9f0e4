// Package suites runs the conformance suites compiled into a program, one
// suite per process, the way each suite's test binary would: `steadystate
// suite NAME` runs here, so an installed steadystate needs no source tree
// and no Go toolchain to run them. The suites themselves live in the
// packages below (lostevents, leader, foreground, finalizer, reconcile,
// controlplane, explore); each declares its specs with Register.
package suites
