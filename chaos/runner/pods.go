package runner

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/internal/proc"
)

// PodLabel marks the pods of a subject that runs in pods, so suites can tell
// them from the pods the subject manages ("!"+PodLabel selects the others).
const PodLabel = "steadystate.dev/subject"

// ControllerContainer is the name of the controller's container in a
// subject's pod; the sidecar is "proxy".
const ControllerContainer = "controller"

// controlPort is the sidecar's control API.
const controlPort = 8090

// PodOptions say how to run a subject's replicas as pods.
type PodOptions struct {
	// Kube and REST reach the cluster as the harness: the sidecars are
	// read through the API server's pod proxy subresource.
	Kube kubernetes.Interface
	REST *rest.Config
	// Namespace is where the Deployment runs.
	Namespace string
	Replicas  int
	// Controller is the controller container, ProxyImage the sidecar's.
	Controller Controller
	ProxyImage string
	// Pull is both containers' image pull policy: Never (the default)
	// where the provider loaded the images into the nodes, IfNotPresent
	// on a cluster that may pull them from a registry.
	Pull corev1.PullPolicy
	// RunTimeout bounds the wait for the pods to run (default 90s),
	// StartTimeout the wait for each controller's first request through
	// its proxy (default 60s).
	RunTimeout, StartTimeout time.Duration
	// Replacement, when set, is told of each pod the Deployment starts
	// after the first ones (replacing a pod a fault deleted), with its
	// proxy's mirror: its requests are evidence too. Replacements are
	// watched, not driven.
	Replacement func(pod string, m *proxy.Mirror)
}

// Pods is a subject running as a Deployment, each pod with the fault
// proxy as a native sidecar.
type Pods struct {
	// Replicas are the first pods, each a chaos.PodHost whose proxy is a
	// mirror of its sidecar's, so its history survives the pod.
	Replicas []chaos.Replica
	o        PodOptions
	client   *http.Client
	mu       sync.Mutex
	mirrors  []*proxy.Mirror
	stop     func()
	revoke   func(context.Context)
}

// StartPods runs o.Controller as a Deployment of o.Replicas in
// o.Namespace and returns when every controller has made a request
// through its proxy. A pod that cannot start (its image not loaded, its
// controller exiting) fails the start at once with the reason and the
// controller's log tail; whatever was made is removed again.
func StartPods(ctx context.Context, o PodOptions) (_ *Pods, err error) {
	if o.RunTimeout == 0 {
		o.RunTimeout = 90 * time.Second
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = time.Minute
	}
	client, err := rest.HTTPClientFor(o.REST)
	if err != nil {
		return nil, err
	}
	p := &Pods{o: o, client: client, stop: func() {}}
	defer func() {
		if err != nil {
			p.Stop(context.WithoutCancel(ctx))
		}
	}()
	if p.revoke, err = grant(ctx, o.Kube, o.Namespace, o.Controller); err != nil {
		return nil, err
	}
	if o.Pull == "" {
		o.Pull = corev1.PullNever
	}
	dep := deployment(o.Controller, o.ProxyImage, o.Replicas, o.Pull)
	if _, err := o.Kube.AppsV1().Deployments(o.Namespace).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		return nil, err
	}
	pods, err := p.waitRunning(ctx)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, pod := range pods {
		m := p.mirror(pod.Name)
		known[pod.Name] = true
		seen := new(atomic.Int32)
		for _, c := range pod.Status.ContainerStatuses {
			if c.Name == ControllerContainer {
				seen.Store(c.RestartCount)
			}
		}
		host := chaos.PodHost{Kube: o.Kube, Namespace: o.Namespace, Name: pod.Name, Container: ControllerContainer, Seal: m.Seal, Seen: seen}
		p.Replicas = append(p.Replicas, chaos.Replica{Identity: pod.Name, Proxy: m, Host: host})
	}
	for _, r := range p.Replicas {
		if err := p.waitTalking(ctx, r); err != nil {
			return nil, err
		}
	}
	p.follow(ctx, known)
	return p, nil
}

func (p *Pods) selector() string { return PodLabel + "=" + p.o.Controller.Name }

// waitRunning waits until o.Replicas pods run.
func (p *Pods) waitRunning(ctx context.Context) ([]corev1.Pod, error) {
	var pods []corev1.Pod
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, p.o.RunTimeout, true, func(ctx context.Context) (bool, error) {
		list, err := p.o.Kube.CoreV1().Pods(p.o.Namespace).List(ctx, metav1.ListOptions{LabelSelector: p.selector()})
		if err != nil {
			return false, nil
		}
		pods = pods[:0]
		for _, pod := range list.Items {
			if trouble := cannotStart(pod); trouble != "" {
				return false, fmt.Errorf("pod %s of subject %s cannot start: %s%s", pod.Name, p.o.Controller.Name, trouble, logTail(ctx, p.o.Kube, pod))
			}
			if pod.Status.Phase == corev1.PodRunning && pod.DeletionTimestamp == nil {
				pods = append(pods, pod)
			}
		}
		return len(pods) == p.o.Replicas, nil
	})
	if wait.Interrupted(err) {
		return nil, fmt.Errorf("%d of the %d pods of subject %s run after %s", len(pods), p.o.Replicas, p.o.Controller.Name, p.o.RunTimeout)
	}
	return pods, err
}

// waitTalking waits until replica r has made a request through its proxy.
func (p *Pods) waitTalking(ctx context.Context, r chaos.Replica) error {
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, p.o.StartTimeout, true, func(ctx context.Context) (bool, error) {
		if pod, err := p.o.Kube.CoreV1().Pods(p.o.Namespace).Get(ctx, r.Identity, metav1.GetOptions{}); err == nil {
			if trouble := cannotStart(*pod); trouble != "" {
				return false, fmt.Errorf("pod %s of subject %s stopped: %s%s", r.Identity, p.o.Controller.Name, trouble, logTail(ctx, p.o.Kube, *pod))
			}
		}
		return len(r.Proxy.Requests()) > 0, nil
	})
	if wait.Interrupted(err) {
		return fmt.Errorf("replica %s of subject %s made no request to the API server through its proxy within %s", r.Identity, p.o.Controller.Name, p.o.StartTimeout)
	}
	return err
}

// mirror reads a pod's sidecar through the API server and keeps a copy.
func (p *Pods) mirror(pod string) *proxy.Mirror {
	base := fmt.Sprintf("%s/api/v1/namespaces/%s/pods/%s:%d/proxy", p.o.REST.Host, p.o.Namespace, pod, controlPort)
	m := proxy.NewMirror(&proxy.Remote{Base: base, Client: p.client}, 250*time.Millisecond)
	p.mu.Lock()
	p.mirrors = append(p.mirrors, m)
	p.mu.Unlock()
	return m
}

// follow tells o.Replacement of every pod that runs after the first ones,
// until Stop.
func (p *Pods) follow(ctx context.Context, known map[string]bool) {
	if p.o.Replacement == nil {
		return
	}
	stop, done := make(chan struct{}), make(chan struct{})
	p.stop = func() { close(stop); <-done }
	go func() {
		defer close(done)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			list, err := p.o.Kube.CoreV1().Pods(p.o.Namespace).List(ctx, metav1.ListOptions{LabelSelector: p.selector()})
			if err != nil {
				continue
			}
			for _, pod := range list.Items {
				if known[pod.Name] || pod.Status.Phase != corev1.PodRunning {
					continue
				}
				known[pod.Name] = true
				p.o.Replacement(pod.Name, p.mirror(pod.Name))
			}
		}
	}()
}

// Stop stops following replacements, closes the mirrors, deletes the
// Deployment (in the foreground), and takes back the pods' ClusterRole
// and certificate.
func (p *Pods) Stop(ctx context.Context) {
	p.stop()
	p.mu.Lock()
	for _, m := range p.mirrors {
		m.Close()
	}
	p.mu.Unlock()
	// Should this fail, the namespace's deletion removes it as well.
	_ = p.o.Kube.AppsV1().Deployments(p.o.Namespace).Delete(ctx, p.o.Controller.Name, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationForeground)})
	if p.revoke != nil {
		p.revoke(ctx)
	}
}

// cannotStart is why a subject's pod cannot start or keep running ("" when
// nothing says so yet): an image the node does not have, a container that
// cannot be created, a controller that exited.
func cannotStart(p corev1.Pod) string {
	for _, s := range append(p.Status.InitContainerStatuses, p.Status.ContainerStatuses...) {
		if w := s.State.Waiting; w != nil {
			switch w.Reason {
			case "ErrImageNeverPull", "ErrImagePull", "ImagePullBackOff", "InvalidImageName", "CreateContainerConfigError", "CreateContainerError", "CrashLoopBackOff", "RunContainerError":
				return fmt.Sprintf("container %s: %s: %s", s.Name, w.Reason, w.Message)
			}
		}
		if s.Name != ControllerContainer {
			continue
		}
		if t := s.State.Terminated; t != nil {
			return fmt.Sprintf("container %s exited with code %d (%s)", s.Name, t.ExitCode, t.Reason)
		}
		if s.RestartCount > 0 {
			return fmt.Sprintf("container %s restarted %d time(s)", s.Name, s.RestartCount)
		}
	}
	return ""
}

// logTail is what a pod's controller log (its previous run's when it
// restarted) says, as a message suffix: its first lines and its last
// (proc.Excerpt). A controller that exits at start names what it did not
// like in its first line as often as in its last.
func logTail(ctx context.Context, kube kubernetes.Interface, p corev1.Pod) string {
	previous := false
	for _, s := range p.Status.ContainerStatuses {
		if s.Name == ControllerContainer && s.RestartCount > 0 {
			previous = true
		}
	}
	limit := int64(headBytes)
	head, err := kube.CoreV1().Pods(p.Namespace).GetLogs(p.Name, &corev1.PodLogOptions{Container: ControllerContainer, Previous: previous, LimitBytes: &limit}).DoRaw(ctx)
	if err != nil || len(head) == 0 {
		return ""
	}
	var tail []byte
	if len(head) >= headBytes {
		lines := int64(proc.ExcerptTail)
		if tail, err = kube.CoreV1().Pods(p.Namespace).GetLogs(p.Name, &corev1.PodLogOptions{Container: ControllerContainer, Previous: previous, TailLines: &lines}).DoRaw(ctx); err != nil {
			tail = nil
		}
	}
	return "; its log:\n" + podLogExcerpt(string(head), string(tail), len(head) < headBytes)
}

// headBytes is as much of a pod's log as is read from its start: a log
// shorter than this is read whole.
const headBytes = 64 << 10

// podLogExcerpt is the excerpt of a pod's log read as its start (head,
// the whole log when whole) and its last lines (tail).
func podLogExcerpt(head, tail string, whole bool) string {
	if whole {
		return proc.Excerpt(head)
	}
	lines := strings.SplitN(head, "\n", proc.ExcerptHead+1)
	out := strings.Join(lines[:min(len(lines), proc.ExcerptHead)], "\n") + "\n… (the log's middle left out) …"
	if tail = strings.TrimRight(tail, "\n"); tail != "" {
		out += "\n" + tail
	}
	return out
}
