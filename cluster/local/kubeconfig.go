package local

import (
	"fmt"
	"os"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeKubeconfig writes a kubeconfig for server with one context named
// contextName, authenticating with a client certificate. Certificates and key
// are embedded, so the file stays valid wherever it is copied.
func writeKubeconfig(path, contextName, server, caFile, certFile, keyFile string) error {
	var data [3][]byte
	for i, f := range []string{caFile, certFile, keyFile} {
		b, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("write kubeconfig %s: %w", path, err)
		}
		data[i] = b
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[contextName] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: data[0]}
	cfg.AuthInfos[contextName] = &clientcmdapi.AuthInfo{ClientCertificateData: data[1], ClientKeyData: data[2]}
	cfg.Contexts[contextName] = &clientcmdapi.Context{Cluster: contextName, AuthInfo: contextName}
	cfg.CurrentContext = contextName
	return clientcmd.WriteToFile(*cfg, path)
}
