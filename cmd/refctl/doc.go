// Command refctl runs steadystate's reference controllers, each with its
// seeded upstream bugs behind --bug:
//
//	refctl workload   scalable workload (OpenKruise CloneSet shape)
//	refctl cluster    pausable, finalized resource (Cluster API shape)
//	refctl move       move Clusters between clusters (clusterctl move shape)
//	refctl composite  claim -> composite -> managed (Crossplane shape)
//	refctl external   the fake external system composite talks to
//	refctl leader     leader-only work (controller-runtime shape)
//	refctl stack      an operator's stack, for the reconcile suite:
//	                  owned, applied, uid-named, cluster-scoped and
//	                  other-namespace children
//
// Every controller takes the leader-election, health, metrics and --bug
// flags of package wiring; `refctl <command> -h` lists them.
package main
