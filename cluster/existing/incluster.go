package existing

import (
	"fmt"
	"os"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// inClusterName names the cluster, user and context of the kubeconfig
// written for a pod's ServiceAccount.
const inClusterName = "in-cluster"

// noKubeconfig says whether kubectl's loading rules find no kubeconfig
// file ($KUBECONFIG's files, or ~/.kube/config).
func noKubeconfig() bool {
	for _, f := range clientcmd.NewDefaultClientConfigLoadingRules().GetLoadingPrecedence() {
		if _, err := os.Stat(f); err == nil {
			return false
		}
	}
	return true
}

// writeInCluster writes a kubeconfig for the ServiceAccount of the pod this
// process runs in (client-go's in-cluster configuration: the API server's
// service address, the mounted CA and token files, the token re-read as
// it rotates), so the tools the harness starts reach the cluster as it
// does. rest.ErrNotInCluster: this is no pod.
func writeInCluster() (string, error) {
	cfg, err := rest.InClusterConfig()
	if err != nil {
		return "", err
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters[inClusterName] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthority: cfg.CAFile}
	kc.AuthInfos[inClusterName] = &clientcmdapi.AuthInfo{TokenFile: cfg.BearerTokenFile}
	kc.Contexts[inClusterName] = &clientcmdapi.Context{Cluster: inClusterName, AuthInfo: inClusterName}
	kc.CurrentContext = inClusterName
	f, err := os.CreateTemp("", "steadystate-in-cluster-*.kubeconfig")
	if err != nil {
		return "", fmt.Errorf("write the in-cluster kubeconfig: %w (a pod needs a writable temporary folder: mount an emptyDir at /tmp)", err)
	}
	f.Close()
	if err := clientcmd.WriteToFile(*kc, f.Name()); err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("write the in-cluster kubeconfig: %w", err)
	}
	return f.Name(), nil
}
