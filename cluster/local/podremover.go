package local

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

// PodRemover is the name of the pod remover's log file (see podRemover).
const PodRemover = "pod-remover"

// podRemover removes the terminating pods of the simulated nodes, as a
// kubelet does once a pod's containers have stopped: a delete with grace
// period 0 and the pod's UID as precondition, so it can only ever remove
// the pod that is terminating, never a pod of the same name created after
// it (a StatefulSet's next web-0). KWOK's own pod-delete stage deletes by
// name alone, once for each event of a terminating pod, and its second
// delete removed the successor: the stage is left out of
// kwok/pod-stages.yaml and this takes its place.
//
// It watches the pods bound to a node and acts on those on a simulated
// node that are terminating. A 404 (the pod is gone) and a 409 (the UID
// precondition failed: the name now holds another pod) are expected and
// only logged; every other error is logged too. The log is PodRemover.log
// in the cluster's log folder.
type podRemover struct {
	kube  kubernetes.Interface
	nodes map[string]bool
	log   *log.Logger

	logFile *os.File
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// newPodRemover makes a remover for the pods of the named nodes, logging
// to logPath. It does nothing until start.
func newPodRemover(kube kubernetes.Interface, nodes []string, logPath string) (*podRemover, error) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open the pod remover's log: %w", err)
	}
	r := &podRemover{kube: kube, nodes: map[string]bool{}, log: log.New(f, "", log.LstdFlags|log.Lmicroseconds|log.LUTC), logFile: f}
	for _, n := range nodes {
		r.nodes[n] = true
	}
	return r, nil
}

// start watches pods until stop and returns once the watch has listed
// them, or with ctx's error.
func (r *podRemover) start(ctx context.Context) error {
	runCtx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	lw := cache.NewFilteredListWatchFromClient(r.kube.CoreV1().RESTClient(), "pods", metav1.NamespaceAll, func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermNotEqualSelector("spec.nodeName", "").String()
	})
	inf := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cache.Indexers{})
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { r.handle(runCtx, obj) },
		UpdateFunc: func(_, obj any) { r.handle(runCtx, obj) },
	}); err != nil {
		return err
	}
	if err := inf.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *cache.Reflector, err error) {
		if runCtx.Err() == nil {
			r.log.Printf("watch pods: %v", err)
		}
	}); err != nil {
		return err
	}
	r.wg.Go(func() { inf.RunWithContext(runCtx) })
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return fmt.Errorf("the pod remover's watch of pods did not sync: %w", ctx.Err())
	}
	r.log.Printf("watching the pods of the simulated nodes")
	return nil
}

func (r *podRemover) handle(ctx context.Context, obj any) {
	if pod, ok := obj.(*corev1.Pod); ok {
		r.remove(ctx, pod)
	}
}

// remove removes pod if it is a terminating pod of a simulated node. A pod
// whose grace period is already 0 is left alone: the API server removes it
// itself once its last finalizer goes.
func (r *podRemover) remove(ctx context.Context, pod *corev1.Pod) {
	if pod.DeletionTimestamp == nil || !r.nodes[pod.Spec.NodeName] {
		return
	}
	if g := pod.DeletionGracePeriodSeconds; g != nil && *g == 0 {
		return
	}
	opts := metav1.DeleteOptions{GracePeriodSeconds: new(int64), Preconditions: metav1.NewUIDPreconditions(string(pod.UID))}
	err := r.kube.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, opts)
	switch {
	case err == nil:
		r.log.Printf("removed pod %s/%s uid=%s from node %s", pod.Namespace, pod.Name, pod.UID, pod.Spec.NodeName)
	case apierrors.IsNotFound(err):
		r.log.Printf("pod %s/%s uid=%s is already gone", pod.Namespace, pod.Name, pod.UID)
	case apierrors.IsConflict(err):
		r.log.Printf("pod %s/%s uid=%s is gone; the name holds another pod, left alone: %v", pod.Namespace, pod.Name, pod.UID, err)
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		// stopping
	default:
		r.log.Printf("remove pod %s/%s uid=%s: %v", pod.Namespace, pod.Name, pod.UID, err)
	}
}

// stop ends the watch, waits for it and closes the log. It is safe to
// call more than once.
func (r *podRemover) stop() {
	if r.cancel != nil {
		r.cancel()
	}
	r.wg.Wait()
	if r.logFile != nil {
		r.log.Printf("stopped")
		r.logFile.Close()
		r.logFile = nil
	}
}

// startPodRemover starts the remover of the simulated nodes' terminating
// pods, as kwok's identity (its writes are the simulated nodes').
func (c *Cluster) startPodRemover(ctx context.Context, kwokKubeconfig string) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kwokKubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 200, 400
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	var nodes []string
	for i := range c.opts.Nodes {
		nodes = append(nodes, NodeName(i))
	}
	r, err := newPodRemover(kube, nodes, logPath(c.logDir, PodRemover))
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.remover = r
	c.mu.Unlock()
	return r.start(ctx)
}

// stopPodRemover stops the remover, if one runs.
func (c *Cluster) stopPodRemover() {
	c.mu.Lock()
	r := c.remover
	c.remover = nil
	c.mu.Unlock()
	if r != nil {
		r.stop()
	}
}
