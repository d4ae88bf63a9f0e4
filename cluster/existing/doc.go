// Package existing uses a cluster that is already running (a vendor's, a
// cloud's, a kind cluster made by hand), given by a kubeconfig and context.
// It never creates or deletes anything at the cluster level.
package existing
