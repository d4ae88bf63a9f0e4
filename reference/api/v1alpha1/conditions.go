package v1alpha1

// Condition types and reasons shared by the kinds, as Crossplane and Cluster
// API name them.
const (
	TypeReady  = "Ready"
	TypeSynced = "Synced"
	TypePaused = "Paused"

	ReasonAvailable   = "Available"
	ReasonUnavailable = "Unavailable"
	ReasonCreating    = "Creating"
	ReasonDeleting    = "Deleting"
	ReasonWaiting     = "Waiting"

	ReasonReconcileSuccess = "ReconcileSuccess"
	ReasonReconcileError   = "ReconcileError"
	ReasonReconcilePaused  = "ReconcilePaused"
)
