package local

import (
	"bytes"
	"context"
	_ "embed" // the default stages
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/steadystate-dev/steadystate/internal/proc"
)

// Simulated nodes. A local cluster has no kubelet: without nodes every pod
// stays Pending, no Deployment becomes Available and no Job completes. With
// them (the default), the cluster creates Node objects that kwok
// (sigs.k8s.io/kwok, built by kube-bins.sh) manages: kwok marks each node
// Ready and plays each pod bound to one through KWOK's "fast" stages, so a
// pod kube-scheduler places is Running and Ready at once and a Job's pod
// then Succeeds. A deleted pod is gone at once: the cluster's pod remover
// (podremover.go) deletes it as a kubelet would, with grace period 0 and
// its UID as precondition, in place of KWOK's pod-delete stage, which
// deletes by name and could remove a same-named successor. No container
// runs: images are never pulled, and logs and exec are not simulated.

// DefaultNodes is the number of simulated nodes LOCAL_NODES=on asks for.
const DefaultNodes = 2

// kwokNodeAnnotation marks the nodes kwok manages (kwok's own convention);
// kwok leaves every other node alone.
const kwokNodeAnnotation = "kwok.x-k8s.io/node"

// NodeName is the name of the i-th simulated node, from 0.
func NodeName(i int) string { return fmt.Sprintf("kwok-node-%d", i) }

var (
	//go:embed kwok/node-stages.yaml
	nodeStages []byte
	//go:embed kwok/pod-stages.yaml
	podStages []byte
)

// kwokConfig is kwok's configuration file: the node stage and the pod
// stages (the default's, or the file podStagesFile names), one YAML
// document each.
func kwokConfig(podStagesFile string) ([]byte, error) {
	pods := podStages
	if podStagesFile != "" {
		var err error
		if pods, err = os.ReadFile(podStagesFile); err != nil {
			return nil, fmt.Errorf("read the pod stages: %w", err)
		}
	}
	var b bytes.Buffer
	b.Write(nodeStages)
	b.WriteString("\n---\n")
	b.Write(pods)
	return b.Bytes(), nil
}

// checkPodStages refuses a pod stages file that is not YAML of KWOK Stage
// objects, or that has a stage deleting pods (next.delete): the cluster
// removes terminating pods itself with the pod's UID as precondition
// (podremover.go), and KWOK's delete, by name, could remove a same-named
// pod created meanwhile.
func checkPodStages(data []byte) error {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for n := 1; ; n++ {
		var st struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Spec struct {
				Next struct {
					Delete bool `json:"delete"`
				} `json:"next"`
			} `json:"spec"`
		}
		err := dec.Decode(&st)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("document %d is not YAML: %v", n, err)
		}
		if st.Kind == "" && st.Metadata.Name == "" {
			continue // an empty document
		}
		if st.Kind != "Stage" {
			return fmt.Errorf("document %d is a %q, not a KWOK Stage", n, st.Kind)
		}
		if st.Spec.Next.Delete {
			return fmt.Errorf("stage %q deletes pods (next.delete: true); the cluster removes terminating pods itself, by UID, so remove that stage", st.Metadata.Name)
		}
	}
}

// startNodeComponents starts kube-scheduler and kwok, each with a
// kubeconfig of its own identity. Both wait for the API server.
func (c *Cluster) startNodeComponents(p ports) (sched, kwok *proc.Proc, err error) {
	schedKubeconfig := filepath.Join(c.workDir, "scheduler.kubeconfig")
	if err := writeKubeconfig(schedKubeconfig, c.opts.Name, c.server, c.pki.CACert, c.pki.SchedulerToken); err != nil {
		return nil, nil, err
	}
	kwokKubeconfig := c.kwokKubeconfig()
	if err := writeKubeconfig(kwokKubeconfig, c.opts.Name, c.server, c.pki.CACert, c.pki.KwokToken); err != nil {
		return nil, nil, err
	}
	config, err := kwokConfig(c.opts.PodStages)
	if err != nil {
		return nil, nil, err
	}
	configFile := filepath.Join(c.workDir, "kwok.yaml")
	if err := os.WriteFile(configFile, config, 0o600); err != nil {
		return nil, nil, err
	}
	c.progress("starting kube-scheduler on 127.0.0.1:%d and kwok (%d simulated nodes)", p.scheduler, c.opts.Nodes)
	if sched, err = c.start(Scheduler, c.bins.Scheduler, schedulerArgs(c.pki, schedKubeconfig, p)); err != nil {
		return nil, nil, err
	}
	if kwok, err = c.start(Kwok, c.bins.Kwok, kwokArgs(kwokKubeconfig, configFile)); err != nil {
		return nil, nil, err
	}
	return sched, kwok, nil
}

// kwokKubeconfig is the kubeconfig of kwok's identity, also the pod
// remover's.
func (c *Cluster) kwokKubeconfig() string { return filepath.Join(c.workDir, "kwok.kubeconfig") }

// waitNodes waits for kube-scheduler's /healthz, creates the simulated
// nodes and waits until kwok has made every one Ready.
func (c *Cluster) waitNodes(ctx context.Context, sched, kwok *proc.Proc, p ports) error {
	check, err := schedulerHealthy(p.scheduler, c.pki)
	if err != nil {
		return err
	}
	if err := waitHealthy(ctx, sched, p.scheduler, 60*time.Second, check); err != nil {
		return err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig)
	if err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	for i := range c.opts.Nodes {
		name := NodeName(i)
		if _, err := kube.CoreV1().Nodes().Create(ctx, simulatedNode(name), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create simulated node %s: %w", name, err)
		}
		// The API server's TaintNodesByCondition admission taints a new
		// node not-ready, and only the node lifecycle controller, which
		// the cluster does not run, would lift it.
		if _, err := kube.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, []byte(`{"spec":{"taints":null}}`), metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("untaint simulated node %s: %w", name, err)
		}
	}
	return waitHealthy(ctx, kwok, 0, 60*time.Second, nodesReady(kube, c.opts.Nodes))
}

// simulatedNode is a node for kwok to manage. Its status is left to kwok's
// node stage: Ready, with room for a million pods.
func simulatedNode(name string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{kwokNodeAnnotation: "fake"},
			Labels: map[string]string{
				"kubernetes.io/hostname": name,
				"kubernetes.io/os":       "linux",
				"kubernetes.io/arch":     "amd64",
				"type":                   "kwok",
			},
		},
	}
}

// nodesReady passes once each of the n simulated nodes is Ready.
func nodesReady(kube kubernetes.Interface, n int) healthCheck {
	return func(ctx context.Context) error {
		for i := range n {
			node, err := kube.CoreV1().Nodes().Get(ctx, NodeName(i), metav1.GetOptions{})
			if err != nil {
				return err
			}
			if !nodeReady(node) {
				return fmt.Errorf("node %s is not Ready yet", node.Name)
			}
		}
		return nil
	}
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
