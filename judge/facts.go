package judge

import "time"

// The facts the offline judges read (see Fact).
var (
	// FactWorkload is the workload's key (ns/name), FactReplicasPath the
	// dotted path of its desired replicas; histories HistoryWorkload and
	// HistoryPods.
	FactWorkload     = Fact[string]{Name: "workload"}
	FactReplicasPath = Fact[string]{Name: "replicasPath"}
	// FactReplica is the replica whose proxy a premise is read from;
	// FactLostPod the pod whose events it must not have had;
	// FactInjectError the fault injection's error, if any.
	FactReplica     = Fact[string]{Name: "replica"}
	FactLostPod     = Fact[string]{Name: "lostPod"}
	FactInjectError = Fact[string]{Name: "injectError"}
	// FactExpectationTimeout is the subject's expectation timeout (0s or
	// absent: the subject keeps no expectations).
	FactExpectationTimeout = Fact[time.Duration]{Name: "expectationTimeout"}
	// FactLease is the Lease's key; history HistoryLease.
	FactLease = Fact[string]{Name: "lease"}
	// FactClaim is the claim's key, FactDeleted when it was deleted,
	// FactWindow the W in force; history HistoryClaims.
	FactClaim   = Fact[string]{Name: "claim"}
	FactDeleted = Fact[time.Time]{Name: "deleted"}
	// FactHealthyFrom is when every fault of an exploration schedule was
	// recovered: a subject cut off cannot write, so what it owes from an
	// event (the claim's Deleting status) is owed from the later of the
	// two.
	FactHealthyFrom = Fact[time.Time]{Name: "healthyFrom"}
	FactWindow      = Fact[time.Duration]{Name: "window"}
	// FactBlocked are the claims blocked by a finalizer (history
	// HistoryBlocked); FactExternalName is the external resource's name,
	// FactOldOwner and FactNewOwner the Managed uids; log LogExternal.
	FactBlocked      = Fact[Names]{Name: "blocked"}
	FactExternalName = Fact[string]{Name: "externalName"}
	FactOldOwner     = Fact[string]{Name: "oldOwner"}
	FactNewOwner     = Fact[string]{Name: "newOwner"}
	// FactClusters lists the clusters whose histories "<cluster>/clusters"
	// and "<cluster>/cleanups" P2 and P4 read; FactFinalizer is the
	// controller's finalizer, FactCleanupUIDLabel the label naming the
	// Cluster a cleanup record is for, FactResource the resource P3
	// watches in the proxy logs.
	FactClusters        = Fact[Names]{Name: "clusters"}
	FactFinalizer       = Fact[string]{Name: "finalizer"}
	FactPausedPath      = Fact[string]{Name: "pausedPath"}
	FactCleanupUIDLabel = Fact[string]{Name: "cleanupUIDLabel"}
	FactResource        = Fact[string]{Name: "resource"}
)

// The names of the histories and logs the offline judges read.
const (
	HistoryWorkload = "workload"
	HistoryPods     = "pods"
	HistoryLease    = "lease"
	HistoryClaims   = "claims"
	HistoryBlocked  = "blocked"
	LogExternal     = "external"
)
