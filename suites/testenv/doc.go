// Package testenv is the environment every Ginkgo suite shares: one cluster
// per suite run, brought up by the first parallel process and torn down after
// the last, clients for it, and a fresh namespace for each spec.
//
// A suite wires it in with two lines:
//
//	var _ = SynchronizedBeforeSuite(testenv.SetupCluster, testenv.Connect)
//	var _ = SynchronizedAfterSuite(func() {}, testenv.TeardownCluster)
package testenv
