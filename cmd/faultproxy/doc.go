// Command faultproxy runs steadystate's fault proxy as a sidecar in a
// subject's pod: the controller's kubeconfig (written to a volume both
// containers share) points at the proxy on localhost, the proxy reaches the
// API server with the pod's service account, and the harness drives it
// through the control API (proxy.Handler), which it reaches through the API
// server's pod proxy subresource, so no port-forward is needed.
//
//	faultproxy --kubeconfig-out=/shared/kubeconfig --replica=$(POD_NAME)
//
// On SIGTERM it keeps answering for --linger, so the harness can read the
// last requests of a replica whose pod is being deleted.
package main
