package subject

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL reads best unqualified.
	. "github.com/onsi/gomega"    //nolint:revive // as above.
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/chaos/proxy"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// Where replicas run: as local processes, or as a Deployment on the
// cluster, each pod carrying the fault proxy as a sidecar. The run's
// configuration chooses (SUBJECT_PLACEMENT; pods on kind, processes
// elsewhere).
const (
	Processes = testenv.Processes
	Pods      = testenv.Pods
)

// The images of a subject in pods, loaded into the cluster by the provider
// (make e2e PROVIDER=kind builds them).
var (
	RefctlImage     = "steadystate/refctl:dev"
	FaultProxyImage = "steadystate/faultproxy:dev"
)

// PodLabel marks the pods of a subject that runs in pods, so suites can tell
// them from the pods the subject manages ("!"+PodLabel selects the others).
const PodLabel = "steadystate.dev/subject"

// controlPort is the sidecar's control API.
const controlPort = 8090

// Placement is where this run's replicas run.
func Placement() string { return testenv.Run().Placement }

// startPods runs c as a Deployment of replicas in namespace ns, each pod
// with the fault proxy as a native sidecar, and returns when every
// controller has made a request through its proxy. Each replica's proxy is
// read through the API server's pod proxy subresource and mirrored, so its
// history survives the pod. A pod that cannot start (its image not loaded,
// its controller exiting) fails the start at once with the reason and the
// controller's log tail.
func startPods(ctx context.Context, ns string, replicas int, c podController, startTimeout time.Duration) chaos.Target {
	env := testenv.Get()
	kube := env.Kube
	cleanup, err := grant(ctx, kube, ns, c)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(cleanup)

	dep := deployment(c, replicas)
	_, err = kube.AppsV1().Deployments(ns).Create(ctx, dep, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx SpecContext) {
		kube.AppsV1().Deployments(ns).Delete(ctx, dep.Name, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationForeground)})
	})

	selector := PodLabel + "=" + c.name
	var pods []corev1.Pod
	Eventually(func() (int, error) {
		list, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return 0, nil
		}
		pods = pods[:0]
		for _, p := range list.Items {
			if trouble := cannotStart(p); trouble != "" {
				return 0, StopTrying(fmt.Sprintf("pod %s of subject %s cannot start: %s%s", p.Name, c.name, trouble, logTail(ctx, kube, p)))
			}
			if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
				pods = append(pods, p)
			}
		}
		return len(pods), nil
	}).WithContext(ctx).WithTimeout(90*time.Second).WithPolling(250*time.Millisecond).Should(Equal(replicas), "the subject's pods should run")

	httpClient, err := rest.HTTPClientFor(env.REST)
	Expect(err).NotTo(HaveOccurred())
	mirror := func(pod string) *proxy.Mirror {
		base := fmt.Sprintf("%s/api/v1/namespaces/%s/pods/%s:%d/proxy", env.REST.Host, ns, pod, controlPort)
		return proxy.NewMirror(&proxy.Remote{Base: base, Client: httpClient}, 250*time.Millisecond)
	}
	target := chaos.Target{Kube: kube}
	known := map[string]bool{}
	for _, p := range pods {
		m := mirror(p.Name)
		DeferCleanup(m.Close)
		name := p.Name
		known[name] = true
		testenv.KeepProxy(name, func() ([]byte, error) {
			return kube.CoreV1().Pods(ns).GetLogs(name, &corev1.PodLogOptions{Container: "controller"}).DoRaw(context.Background())
		}, m)
		Eventually(func() (int, error) {
			if p, err := kube.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{}); err == nil {
				if trouble := cannotStart(*p); trouble != "" {
					return 0, StopTrying(fmt.Sprintf("pod %s of subject %s stopped: %s%s", name, c.name, trouble, logTail(ctx, kube, *p)))
				}
			}
			return len(m.Requests()), nil
		}).WithContext(ctx).WithTimeout(startTimeout).WithPolling(250*time.Millisecond).
			Should(BeNumerically(">", 0), "replica %s should talk to the API server through its proxy", name)
		target.Replicas = append(target.Replicas, chaos.Replica{Identity: name, Proxy: m, Pod: &chaos.PodRef{Namespace: ns, Name: name}})
	}
	followReplacements(ctx, ns, selector, known, mirror)
	return target
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
		if t := s.State.Terminated; t != nil && s.Name == "controller" {
			return fmt.Sprintf("container %s exited with code %d (%s)", s.Name, t.ExitCode, t.Reason)
		}
		if s.Name == "controller" && s.RestartCount > 0 {
			return fmt.Sprintf("container %s restarted %d time(s)", s.Name, s.RestartCount)
		}
	}
	return ""
}

// logTail is the end of a pod's controller log, its previous run's when
// it restarted, as a message suffix.
func logTail(ctx context.Context, kube kubernetes.Interface, p corev1.Pod) string {
	lines := int64(15)
	o := &corev1.PodLogOptions{Container: "controller", TailLines: &lines}
	for _, s := range p.Status.ContainerStatuses {
		if s.Name == "controller" && s.RestartCount > 0 {
			o.Previous = true
		}
	}
	b, err := kube.CoreV1().Pods(p.Namespace).GetLogs(p.Name, o).DoRaw(ctx)
	if err != nil || len(b) == 0 {
		return ""
	}
	return "; its log ends:\n" + string(b)
}

// followReplacements adds the proxy of every pod the Deployment starts
// after the first ones (replacing a pod a fault deleted) to the spec's
// evidence, so its replica's requests are judged too. The faults act on
// the first replicas; replacements are watched, not driven.
func followReplacements(ctx context.Context, ns, selector string, known map[string]bool, mirror func(string) *proxy.Mirror) {
	kube, collector := testenv.Get().Kube, testenv.Evidence()
	stop, done := make(chan struct{}), make(chan struct{})
	var mirrors []*proxy.Mirror
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
			list, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
			if err != nil {
				continue
			}
			for _, p := range list.Items {
				if known[p.Name] || p.Status.Phase != corev1.PodRunning {
					continue
				}
				known[p.Name] = true
				m := mirror(p.Name)
				mirrors = append(mirrors, m)
				collector.AddProxy(p.Name, m)
			}
		}
	}()
	DeferCleanup(func() {
		close(stop)
		<-done
		for _, m := range mirrors {
			m.Close()
		}
	})
}

// Exited reports whether a replica's controller has exited since it
// started: its local process, or the controller container of its pod
// (terminated, restarted, or the pod gone).
func Exited(ctx context.Context, r chaos.Replica) bool {
	switch {
	case r.Process != nil:
		return r.Process.Exited()
	case r.Pod == nil:
		return false
	}
	pod, err := testenv.Get().Kube.CoreV1().Pods(r.Pod.Namespace).Get(ctx, r.Pod.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return true
	}
	if err != nil {
		return false
	}
	for _, c := range pod.Status.ContainerStatuses {
		if c.Name == "controller" && (c.RestartCount > 0 || c.State.Terminated != nil) {
			return true
		}
	}
	return false
}
