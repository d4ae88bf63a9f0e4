// Package kind is the kind cluster provider: a cluster from kind-config.yaml
// through the sigs.k8s.io/kind library (not the kind command), on the node
// image KIND_NODE_IMAGE names (kindest/node where a registry answers, the
// offline image `make kind-image` builds where none does). Create checks
// what it needs first (a Docker engine, the image, a config that parses, a
// free cluster name) so a bad input leaves nothing behind, waits for the
// node to be Ready, and writes a kubeconfig; Destroy deletes the cluster
// unless asked to keep it. It implements e2e-framework's
// support.E2EClusterProviderWithImageLoader.
package kind
