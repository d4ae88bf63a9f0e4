// Package runner runs a subject's replicas as local processes, each talking
// to the API server through its own fault proxy, so that every replica's
// requests are recorded and can be faulted: refctl for the reference
// controllers, or any command (a subject file's). It is harness code; the
// reference controllers are one thing it runs.
package runner
