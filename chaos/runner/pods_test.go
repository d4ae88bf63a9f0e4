package runner

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
)

// TestAPodThatCannotStartFailsAtOnceAndLeavesNothing: a pod whose image the
// node does not have fails the start with the kubelet's reason, long
// before the run timeout, and the Deployment, the ClusterRoleBinding and
// the certificate's Secret are not left behind.
func TestAPodThatCannotStartFailsAtOnceAndLeavesNothing(t *testing.T) {
	kube := fake.NewClientset(&corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "mgr-abc", Namespace: "ns", Labels: map[string]string{PodLabel: "mgr"}},
		Status: corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{
			Name:  ControllerContainer,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ErrImageNeverPull", Message: `image "example.com/mgr:v1" is not present`}},
		}}},
	})
	start := time.Now()
	_, err := StartPods(t.Context(), PodOptions{
		Kube: kube, REST: &rest.Config{Host: "https://127.0.0.1:1"}, Namespace: "ns", Replicas: 1,
		Controller: Controller{Name: "mgr", Image: "example.com/mgr:v1", ClusterRole: "cluster-admin", Certs: map[string][]byte{"tls.crt": nil}},
		ProxyImage: "proxy:dev", RunTimeout: time.Minute,
	})
	if err == nil || !strings.Contains(err.Error(), `pod mgr-abc of subject mgr cannot start: container controller: ErrImageNeverPull: image "example.com/mgr:v1" is not present`) {
		t.Fatalf("err = %v", err)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("the start failed only after %s", took)
	}
	if d, _ := kube.AppsV1().Deployments("ns").List(t.Context(), metav1.ListOptions{}); len(d.Items) != 0 {
		t.Errorf("the Deployment was left: %v", d.Items[0].Name)
	}
	if b, _ := kube.RbacV1().ClusterRoleBindings().List(t.Context(), metav1.ListOptions{}); len(b.Items) != 0 {
		t.Errorf("the ClusterRoleBinding was left: %v", b.Items[0].Name)
	}
	if s, _ := kube.CoreV1().Secrets("ns").List(t.Context(), metav1.ListOptions{}); len(s.Items) != 0 {
		t.Errorf("the certificate's Secret was left: %v", s.Items[0].Name)
	}
}

// TestDeploymentRunsTheControllerBesideItsProxy: the controller container
// gets POD_NAME first (its other values may use it), the shared
// kubeconfig, /tmp and the certificate; the proxy is a native sidecar.
func TestDeploymentRunsTheControllerBesideItsProxy(t *testing.T) {
	d := deployment(Controller{Name: "mgr", Image: "example.com/mgr:v1", Args: []string{"--id=" + PodName}, Env: [][2]string{{"KUBECONFIG", Kubeconfig}}, Certs: map[string][]byte{}}, "proxy:dev", 2, corev1.PullNever)
	spec := d.Spec.Template.Spec
	c := spec.Containers[0]
	if c.Name != ControllerContainer || c.Env[0].Name != "POD_NAME" || c.Env[1].Value != Kubeconfig || *d.Spec.Replicas != 2 {
		t.Errorf("controller container = %+v", c)
	}
	var mounts []string
	for _, m := range c.VolumeMounts {
		mounts = append(mounts, m.MountPath)
	}
	if got := strings.Join(mounts, " "); got != "/shared /tmp /certs" {
		t.Errorf("mounts = %s", got)
	}
	if s := spec.InitContainers[0]; s.Image != "proxy:dev" || s.RestartPolicy == nil || *s.RestartPolicy != corev1.ContainerRestartPolicyAlways {
		t.Errorf("sidecar = %+v", s)
	}
}

// A pod's log is shown by its first lines and its last: a controller that
// exits on a flag it does not know says so first, and its usage follows.
func TestPodLogExcerptKeepsTheFirstLines(t *testing.T) {
	log := "flag provided but not defined: -kubeconfg\nUsage of manager:\n"
	for i := range 40 {
		log += fmt.Sprintf("  -option%d string\n", i)
	}
	got := podLogExcerpt(log, "", true)
	for _, want := range []string{"flag provided but not defined: -kubeconfg", "… 17 lines …", "-option39 string"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	// A log longer than is read from its start: its first lines, then
	// its last, read apart.
	got = podLogExcerpt(log[:200], "  -option38 string\n  -option39 string\n", false)
	want := "flag provided but not defined: -kubeconfg\nUsage of manager:\n  -option0 string\n  -option1 string\n  -option2 string\n… (the log's middle left out) …\n  -option38 string\n  -option39 string"
	if got != want {
		t.Errorf("excerpt:\n%s\nwant:\n%s", got, want)
	}
	pod := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "mgr-abc", Namespace: "ns"}}
	if got := logTail(t.Context(), fake.NewClientset(&pod), pod); got != "; its log:\nfake logs" {
		t.Errorf("the pod's log: %q", got)
	}
}
