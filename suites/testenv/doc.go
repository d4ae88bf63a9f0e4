// Package testenv is the environment every Ginkgo suite shares: one cluster
// per suite run, brought up by the first parallel process and torn down after
// the last, clients for it, and a fresh namespace for each spec.
//
// A suite's Register wires it in before declaring its specs:
//
//	testenv.Lifecycle(testenv.SetupCluster, testenv.Connect)
//
// What belongs to one spec (its evidence, the properties it says it cannot
// judge, its verdicts) is a Spec, made by Begin when the spec starts and
// passed to what records or judges for it:
//
//	BeforeEach(func(ctx SpecContext) { ns, spec = testenv.NewNamespace(ctx, "steady"), testenv.Begin() })
package testenv
