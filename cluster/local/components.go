package local

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// DefaultControllers are the kube-controller-manager controllers a local
// cluster runs unless told otherwise: those of kube-controller-manager's
// default set that the built-in workloads (Deployments, ReplicaSets,
// StatefulSets, DaemonSets, Jobs, CronJobs), Services, namespaces, service
// accounts and garbage collection (foreground deletion) need, and that work
// with no cloud, no kubelet and no storage. Left out: the node lifecycle and
// taint eviction controllers (simulated nodes send no heartbeat, and a slow
// machine would see nodes go NotReady and their pods evicted), the volume
// controllers (no storage), node IPAM and routes, the cloud and certificate
// controllers, resource quotas and autoscaling (no metrics).
var DefaultControllers = []string{
	"garbage-collector-controller",
	"namespace-controller",
	"serviceaccount-controller",
	"serviceaccount-token-controller",
	"root-ca-certificate-publisher-controller",
	"clusterrole-aggregation-controller",
	"replicaset-controller",
	"deployment-controller",
	"statefulset-controller",
	"daemonset-controller",
	"job-controller",
	"cronjob-controller",
	"ttl-after-finished-controller",
	"disruption-controller",
	"endpointslice-controller",
	"pod-garbage-collector-controller",
}

// ports are the loopback ports of one cluster's components.
type ports struct {
	etcdClient, etcdPeer, apiServer, controllerManager, scheduler int
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
		// it, so a short timeout costs nothing. Its raft ticks every
		// heartbeat interval, idle or not: two idle etcds side by side
		// used 0.46 to 0.63 CPU-seconds a minute at 20 ms, 0.22 to 0.34
		// at 100 ms, for a start about 0.1 s slower
		// (docs/zoo/2026-12-01-one-cluster-shared.md); a
		// hunt's cluster idles through most of its schedules' waits.
		"--heartbeat-interval=100",
		"--election-timeout=500",
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
		"--token-auth-file=" + k.Tokens,
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
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", p.controllerManager),
		"--tls-cert-file=" + k.KCMServingCert,
		"--tls-private-key-file=" + k.KCMServingKey,
		"--leader-elect=false",
		"--controllers=" + strings.Join(controllers, ","),
		"--root-ca-file=" + k.CACert,
		"--use-service-account-credentials=false",
		// The default 20 requests a second per controller would make a
		// Deployment of 1,000 replicas take 50 s to create its pods alone.
		"--kube-api-qps=200",
		"--kube-api-burst=400",
		"--profiling=false",
		"--v=1",
	}
	// kube-controller-manager starts its tokens controller whenever it is
	// given a signing key, whatever --controllers says: turned off, it
	// gets none (else it and a subject's own would each rewrite every
	// token Secret's ca.crt with their own CA, for ever).
	if slices.Contains(controllers, "serviceaccount-token-controller") {
		args = append(args, "--service-account-private-key-file="+k.ServiceAccountKey)
	}
	return args
}

func schedulerArgs(k *clusterPKI, kubeconfig string, p ports) []string {
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", p.scheduler),
		"--tls-cert-file=" + k.SchedulerServingCert,
		"--tls-private-key-file=" + k.SchedulerServingKey,
		"--leader-elect=false",
		"--kube-api-qps=200",
		"--kube-api-burst=400",
		"--profiling=false",
		"--v=1",
	}
}

// kwokPodCIDR is where simulated pods get their IPs: apart from the
// service range (kwok's default, 10.0.0.0/24, is the service range here).
const kwokPodCIDR = "10.244.0.0/16"

// kwokArgs run kwok on the nodes the cluster creates (those with the
// kwokNodeAnnotation), with the stages of configFile, no node leases
// (nothing here watches them: no node lifecycle controller) and no server
// (no kubelet API to fake: logs and exec are not simulated).
func kwokArgs(kubeconfig, configFile string) []string {
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--config=" + configFile,
		"--manage-nodes-with-annotation-selector=" + kwokNodeAnnotation + "=fake",
		"--cidr=" + kwokPodCIDR,
		"--node-lease-duration-seconds=0",
	}
}

// logPath is where a component's output goes.
func logPath(dir, component string) string {
	return filepath.Join(dir, component+".log")
}
