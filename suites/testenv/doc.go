// Package testenv is the environment every Ginkgo suite shares: one cluster
// per suite run, brought up by the first parallel process and torn down after
// the last, clients for it, and a fresh namespace for each spec.
//
// A suite's Register wires it in before declaring its specs:
//
//	testenv.Lifecycle(testenv.SetupCluster, testenv.Connect)
package testenv
