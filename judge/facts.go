package judge

// The facts and the names of histories and logs the offline judges read.
const (
	// FactWorkload is the workload's key (ns/name), FactReplicasPath the
	// dotted path of its desired replicas; histories HistoryWorkload and
	// HistoryPods.
	FactWorkload     = "workload"
	FactReplicasPath = "replicasPath"
	HistoryWorkload  = "workload"
	HistoryPods      = "pods"
	// FactReplica is the replica whose proxy a premise is read from;
	// FactLostPod the pod whose events it must not have had;
	// FactInjectError the fault injection's error, if any.
	FactReplica     = "replica"
	FactLostPod     = "lostPod"
	FactInjectError = "injectError"
	// FactExpectationTimeout is the subject's expectation timeout (a
	// duration; 0s or absent: the subject keeps no expectations).
	FactExpectationTimeout = "expectationTimeout"
	// FactLease is the Lease's key; history HistoryLease.
	FactLease    = "lease"
	HistoryLease = "lease"
	// FactClaim is the claim's key, FactDeleted when it was deleted,
	// FactWindow the W in force; history HistoryClaims.
	FactClaim   = "claim"
	FactDeleted = "deleted"
	// FactHealthyFrom is when every fault of an exploration schedule was
	// recovered: a subject cut off cannot write, so what it owes from an
	// event (the claim's Deleting status) is owed from the later of the
	// two.
	FactHealthyFrom = "healthyFrom"
	FactWindow      = "window"
	HistoryClaims   = "claims"
	// FactExternalName is the external resource's name, FactOldOwner and
	// FactNewOwner the Managed uids; log LogExternal.
	FactBlocked      = "blocked"
	HistoryBlocked   = "blocked"
	FactExternalName = "externalName"
	FactOldOwner     = "oldOwner"
	FactNewOwner     = "newOwner"
	LogExternal      = "external"
	// FactClusters lists the clusters (comma-separated) whose histories
	// "<cluster>/clusters" and "<cluster>/cleanups" P2 and P4 read;
	// FactFinalizer is the controller's finalizer, FactCleanupUIDLabel the
	// label naming the Cluster a cleanup record is for, FactResource the
	// resource P3 watches in the proxy logs.
	FactClusters        = "clusters"
	FactFinalizer       = "finalizer"
	FactPausedPath      = "pausedPath"
	FactCleanupUIDLabel = "cleanupUIDLabel"
	FactResource        = "resource"
)
