package local

import (
	"fmt"
	"os"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeKubeconfig writes a kubeconfig for server with one context named
// contextName, authenticating with a bearer token (see clusterPKI). The
// CA certificate and the token are embedded, so the file stays valid
// wherever it is copied.
func writeKubeconfig(path, contextName, server, caFile, token string) error {
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[contextName] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	cfg.AuthInfos[contextName] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts[contextName] = &clientcmdapi.Context{Cluster: contextName, AuthInfo: contextName}
	cfg.CurrentContext = contextName
	return clientcmd.WriteToFile(*cfg, path)
}
