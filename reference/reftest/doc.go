// Package reftest is the shared set-up of the reference controllers'
// directed tests: one local cluster with the reference CRDs, refctl built
// once, and subjects started behind fault proxies.
package reftest
