package subject

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL reads best unqualified.
	. "github.com/onsi/gomega"    //nolint:revive // as above.
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
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

// startPods runs refctl command as a Deployment of replicas in namespace
// ns, each pod with the fault proxy as a native sidecar, and returns when
// every controller has made a request through its proxy. Each replica's
// proxy is read through the API server's pod proxy subresource and
// mirrored, so its history survives the pod.
func startPods(ctx context.Context, ns, command string, replicas int, args []string) chaos.Target {
	env := testenv.Get()
	kube := env.Kube
	_, err := kube.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "subject"}}, metav1.CreateOptions{})
	Expect(allowExisting(err)).To(Succeed())
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "steadystate-subject-" + ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "refctl"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "subject", Namespace: ns}},
	}
	_, err = kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{})
	Expect(allowExisting(err)).To(Succeed())
	DeferCleanup(func(ctx SpecContext) {
		kube.RbacV1().ClusterRoleBindings().Delete(ctx, binding.Name, metav1.DeleteOptions{})
	})

	dep := deployment(command, replicas, args)
	_, err = kube.AppsV1().Deployments(ns).Create(ctx, dep, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx SpecContext) {
		kube.AppsV1().Deployments(ns).Delete(ctx, dep.Name, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationForeground)})
	})

	var pods []corev1.Pod
	Eventually(func() int {
		list, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: PodLabel + "=" + command})
		if err != nil {
			return 0
		}
		pods = pods[:0]
		for _, p := range list.Items {
			if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
				pods = append(pods, p)
			}
		}
		return len(pods)
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
		Eventually(func() int { return len(m.Requests()) }).WithContext(ctx).WithTimeout(60*time.Second).
			Should(BeNumerically(">", 0), "replica %s should talk to the API server through its proxy", name)
		target.Replicas = append(target.Replicas, chaos.Replica{Identity: name, Proxy: m, Pod: &chaos.PodRef{Namespace: ns, Name: name}})
	}
	followReplacements(ctx, ns, command, known, mirror)
	return target
}

// followReplacements adds the proxy of every pod the Deployment starts
// after the first ones (replacing a pod a fault deleted) to the spec's
// evidence, so its replica's requests are judged too. The faults act on
// the first replicas; replacements are watched, not driven.
func followReplacements(ctx context.Context, ns, command string, known map[string]bool, mirror func(string) *proxy.Mirror) {
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
			list, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: PodLabel + "=" + command})
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

// allowExisting accepts AlreadyExists: several subjects of a spec share
// one service account.
func allowExisting(err error) error {
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// deployment is the subject: refctl as the main container, the fault
// proxy as a native sidecar (an init container that keeps running, started
// and healthy before the controller starts), sharing the kubeconfig the
// proxy writes.
func deployment(command string, replicas int, args []string) *appsv1.Deployment {
	labels := map[string]string{PodLabel: command}
	podName := corev1.EnvVar{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}
	shared := corev1.VolumeMount{Name: "shared", MountPath: "/shared"}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: command, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(int32(replicas)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					ServiceAccountName:            "subject",
					TerminationGracePeriodSeconds: ptr.To(int64(15)),
					InitContainers: []corev1.Container{{
						Name: "proxy", Image: FaultProxyImage, ImagePullPolicy: corev1.PullNever,
						RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways),
						Args:          []string{"--kubeconfig-out=/shared/kubeconfig", fmt.Sprintf("--control=:%d", controlPort), "--linger=2s"},
						Env:           []corev1.EnvVar{podName},
						Ports:         []corev1.ContainerPort{{Name: "control", ContainerPort: controlPort}},
						StartupProbe: &corev1.Probe{
							ProbeHandler:     corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(controlPort)}},
							PeriodSeconds:    1,
							FailureThreshold: 60,
						},
						VolumeMounts: []corev1.VolumeMount{shared},
					}},
					Containers: []corev1.Container{{
						Name: "controller", Image: RefctlImage, ImagePullPolicy: corev1.PullNever,
						Args:         append([]string{command, "--kubeconfig=/shared/kubeconfig", "--identity=$(POD_NAME)", "--health-addr=0", "--metrics-addr=0"}, args...),
						Env:          []corev1.EnvVar{podName},
						VolumeMounts: []corev1.VolumeMount{shared},
					}},
					Volumes: []corev1.Volume{{Name: "shared", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
				},
			},
		},
	}
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
