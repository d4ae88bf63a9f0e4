package local

import (
	"fmt"
	"path/filepath"
	"strings"
)

// DefaultControllers are the kube-controller-manager controllers a local
// cluster runs unless told otherwise: enough for namespaces, service
// accounts, garbage collection (foreground deletion) and ReplicaSets.
var DefaultControllers = []string{
	"garbage-collector-controller",
	"namespace-controller",
	"serviceaccount-controller",
	"serviceaccount-token-controller",
	"replicaset-controller",
}

// ports are the loopback ports of one cluster's components.
type ports struct {
	etcdClient, etcdPeer, apiServer, controllerManager int
}

func etcdArgs(dataDir string, p ports) []string {
	client := fmt.Sprintf("http://127.0.0.1:%d", p.etcdClient)
	peer := fmt.Sprintf("http://127.0.0.1:%d", p.etcdPeer)
	return []string{
		"--name=default",
		"--data-dir=" + dataDir,
		"--listen-client-urls=" + client,
		"--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer,
		"--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=default=" + peer,
		"--unsafe-no-fsync",
		// A single member elects itself after one election timeout; the
		// default 1 s is most of a cold start. Nobody can take over from
		// it, so short timeouts cost nothing.
		"--heartbeat-interval=20",
		"--election-timeout=100",
		"--log-level=warn",
	}
}

func apiServerArgs(k *clusterPKI, p ports) []string {
	return []string{
		fmt.Sprintf("--etcd-servers=http://127.0.0.1:%d", p.etcdClient),
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", p.apiServer),
		"--tls-cert-file=" + k.APIServerCert,
		"--tls-private-key-file=" + k.APIServerKey,
		"--client-ca-file=" + k.CACert,
		"--service-account-key-file=" + k.ServiceAccountPub,
		"--service-account-signing-key-file=" + k.ServiceAccountKey,
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-cluster-ip-range=" + serviceCIDR,
		"--authorization-mode=RBAC",
		"--allow-privileged=true",
		// One apiserver, no real nodes: nothing to reconcile endpoints for.
		"--endpoint-reconciler-type=none",
		"--profiling=false",
		"--v=1",
	}
}

func controllerManagerArgs(k *clusterPKI, kubeconfig string, controllers []string, p ports) []string {
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", p.controllerManager),
		"--tls-cert-file=" + k.KCMServingCert,
		"--tls-private-key-file=" + k.KCMServingKey,
		"--leader-elect=false",
		"--controllers=" + strings.Join(controllers, ","),
		"--service-account-private-key-file=" + k.ServiceAccountKey,
		"--root-ca-file=" + k.CACert,
		"--use-service-account-credentials=false",
		"--profiling=false",
		"--v=1",
	}
}

// logPath is where a component's output goes.
func logPath(dir, component string) string {
	return filepath.Join(dir, component+".log")
}
