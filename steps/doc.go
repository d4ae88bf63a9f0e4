// Package steps offers steadystate's faults and oracle as e2e-framework
// feature steps, for tests written with sigs.k8s.io/e2e-framework instead
// of Ginkgo: Record a resource's history, Inject a fault, and assess with
// Converges that the recorded history reaches a wanted state within T and
// keeps it for W. Clusters come from steadystate's providers, which are
// e2e-framework cluster providers:
//
//	testenv.Setup(envfuncs.CreateCluster(local.NewProvider(local.Options{}), "demo"))
//	f := features.New("a ReplicaSet under a pod deletion storm").
//		Setup(steps.Record("rs", replicasets, ns)).
//		Assess("replaces deleted pods", steps.Inject(chaos.PodDeletion{Namespace: ns}, steps.Target)).
//		Assess("converges", steps.Converges("rs", judge.Replicas(ns+"/web", ...), 30*time.Second, time.Second))
//
// example_test.go runs this against a local cluster in `make test`.
package steps
