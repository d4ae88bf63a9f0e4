package chaosmesh

import (
	"context"
	"crypto/x509"
	"crypto/x509/pkix"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/cluster/image"
	"github.com/steadystate-dev/steadystate/cluster/kind/kindtest"
	"github.com/steadystate-dev/steadystate/internal/pki"
)

// The images the kind test loads: the controller-manager and a victim,
// each one static binary FROM scratch.
const (
	managerImage = "steadystate.dev/upstream/chaos-mesh:dev"
	victimImage  = "steadystate.dev/chaosmesh-victim:dev"
	managerNS    = "chaos-mesh"
)

// Chaos Mesh's controller-manager as a Deployment on kind, its release
// binary (make upstream-bins) packed FROM scratch and loaded into the
// node with no registry: PodChaos kills a running pod it selects and no
// other. A NetworkChaos before chaos-daemon runs fails with Chaos Mesh's
// own reason and leaves nothing behind; once it runs (daemon_test.go), a
// partition cuts the selected pods from the target's and recovery
// restores the connection.
func TestChaosMeshOnKind(t *testing.T) {
	if os.Getenv("STEADYSTATE_REQUIRE_KIND") != "1" {
		t.Skip("needs a Docker engine and the kind node image: make chaosmesh-kind-test runs it")
	}
	crds, binary := controllerManager(t)
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Minute)
	defer cancel()
	dir := t.TempDir()
	archives := []string{filepath.Join(dir, "manager.tar"), filepath.Join(dir, "victim.tar")}
	if err := image.FromBinary(binary, managerImage, archives[0]); err != nil {
		t.Fatal(err)
	}
	if err := image.FromBinary(victimBinary(t, dir), victimImage, archives[1]); err != nil {
		t.Fatal(err)
	}

	p := kindtest.New(ctx, t, "steadystate-chaosmesh")
	for _, a := range archives {
		if err := p.LoadImageArchive(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	buildDaemonImage(ctx, t, dir)
	if err := p.LoadImage(ctx, daemonImage); err != nil {
		t.Fatal(err)
	}
	cfg := p.KubernetesRestConfig()
	kube, dyn := kubernetes.NewForConfigOrDie(cfg), dynamic.NewForConfigOrDie(cfg)
	if err := applyDir(ctx, cfg, crds); err != nil {
		t.Fatal(err)
	}
	deployManager(ctx, t, kube)

	ns := "victims"
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	victim, bystander := runningPod(ctx, t, kube, ns, "victim", "web"), runningPod(ctx, t, kube, ns, "bystander", "db")
	target := chaos.Target{Kube: kube, Dynamic: dyn}

	t.Run("pod kill", func(t *testing.T) {
		kill := &PodKill{Namespace: ns, Labels: map[string]string{"app": "web"}, Timeout: time.Minute}
		if _, err := chaos.Inject(ctx, chaos.NewTimeline(), kill, target); err != nil {
			t.Fatal(err)
		}
		if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			_, err := kube.CoreV1().Pods(ns).Get(ctx, victim, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		}); err != nil {
			t.Errorf("the selected pod %s is still there 30s after Chaos Mesh reported it killed", victim)
		}
		if pod, err := kube.CoreV1().Pods(ns).Get(ctx, bystander, metav1.GetOptions{}); err != nil || pod.DeletionTimestamp != nil {
			t.Errorf("a pod the selector does not select is gone or going: %v", err)
		}
		assertNoExperiments(t, dyn, ns, "podchaos")
	})

	t.Run("network partition: no chaos-daemon, Chaos Mesh's reason", func(t *testing.T) {
		runningPod(ctx, t, kube, ns, "web-0", "web")
		f := &NetworkPartition{Namespace: ns, Labels: map[string]string{"app": "web"}, TargetLabels: map[string]string{"app": "db"}, Duration: time.Minute, Timeout: 20 * time.Second}
		_, err := chaos.Inject(ctx, chaos.NewTimeline(), f, target)
		if err == nil || !strings.Contains(err.Error(), "Chaos Mesh says: ") {
			t.Fatalf("err = %v, want Chaos Mesh's reason", err)
		}
		t.Logf("as expected without chaos-daemon: %v", err)
		assertNoExperiments(t, dyn, ns, "networkchaos")
		if err := kube.CoreV1().Pods(ns).Delete(ctx, "web-0", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("network partition through chaos-daemon", func(t *testing.T) {
		deployDaemon(ctx, t, kube)
		db, err := kube.CoreV1().Pods(ns).Get(ctx, bystander, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		startProbe(ctx, t, kube, ns, "probe", "web", db.Status.PodIP+":9090")
		if err := probeSays(ctx, kube, ns, "probe", "reach", time.Minute); err != nil {
			t.Fatalf("the probe does not reach %s before the partition: %v", db.Status.PodIP, err)
		}
		f := &NetworkPartition{Namespace: ns, Labels: map[string]string{"app": "web"}, TargetLabels: map[string]string{"app": "db"}, Duration: 15 * time.Second, Timeout: time.Minute}
		done := make(chan error, 1)
		start := time.Now()
		go func() {
			_, err := chaos.Inject(ctx, chaos.NewTimeline(), f, target)
			done <- err
		}()
		if err := probeSays(ctx, kube, ns, "probe", "cut", time.Minute); err != nil {
			t.Errorf("the probe still reaches the db pod a minute into the partition: %v", err)
		} else {
			t.Logf("the probe's connections cut %.1fs after the NetworkChaos was created", time.Since(start).Seconds())
		}
		if err := <-done; err != nil {
			t.Fatalf("partition: %v", err)
		}
		recovered := time.Now()
		if err := probeSays(ctx, kube, ns, "probe", "reach", 30*time.Second); err != nil {
			t.Errorf("the probe does not reach the db pod 30s after the partition was recovered: %v", err)
		} else {
			t.Logf("the probe reaches the db pod %.1fs after the recovery", time.Since(recovered).Seconds())
		}
		assertNoExperiments(t, dyn, ns, "networkchaos")
	})
}

// victimBinary builds refctl, static, whose external command serves
// until it is killed: a pod for Chaos Mesh to kill.
func victimBinary(t *testing.T, dir string) string {
	out := filepath.Join(dir, "refctl")
	staticBuild(t, "./cmd/refctl", out)
	return out
}

// deployManager runs the controller-manager in namespace chaos-mesh with
// cluster-admin, no leader election, and a self-signed pair for the
// webhook server it starts (no webhook configuration points at it), and
// waits until its pod runs.
func deployManager(ctx context.Context, t *testing.T, kube kubernetes.Interface) {
	ca, err := pki.NewCA("chaos-mesh-webhook")
	if err != nil {
		t.Fatal(err)
	}
	pair, err := ca.Issue(pki.Request{Subject: pkix.Name{CommonName: "chaos-mesh"}, DNSNames: []string{"chaos-mesh-controller-manager." + managerNS + ".svc"}, Usage: x509.ExtKeyUsageServerAuth})
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{"app": "chaos-controller-manager"}
	create := []func() error{
		func() error {
			_, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: managerNS}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := kube.CoreV1().ServiceAccounts(managerNS).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "chaos-controller-manager"}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: "chaos-controller-manager"},
				RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "cluster-admin"},
				Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "chaos-controller-manager", Namespace: managerNS}},
			}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := kube.CoreV1().Secrets(managerNS).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "webhook-certs"},
				Data: map[string][]byte{"tls.crt": pair.CertPEM, "tls.key": pair.KeyPEM}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			env := []corev1.EnvVar{{Name: "CERTS_DIR", Value: "/etc/webhook/certs"}, {Name: "ENABLE_LEADER_ELECTION", Value: "false"},
				{Name: "NAMESPACE", Value: managerNS}, {Name: "WEBHOOK_PORT", Value: "9443"}, {Name: "METRICS_PORT", Value: "10080"}}
			_, err := kube.AppsV1().Deployments(managerNS).Create(ctx, &appsv1.Deployment{
				ObjectMeta: metav1.ObjectMeta{Name: "chaos-controller-manager"},
				Spec: appsv1.DeploymentSpec{Replicas: ptr.To(int32(1)), Selector: &metav1.LabelSelector{MatchLabels: labels},
					Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
						ServiceAccountName: "chaos-controller-manager",
						Containers: []corev1.Container{{Name: "manager", Image: managerImage, ImagePullPolicy: corev1.PullNever, Env: env,
							VolumeMounts: []corev1.VolumeMount{{Name: "certs", MountPath: "/etc/webhook/certs", ReadOnly: true}}}},
						Volumes: []corev1.Volume{{Name: "certs", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "webhook-certs"}}}},
					}}},
			}, metav1.CreateOptions{})
			return err
		},
	}
	for _, c := range create {
		if err := c(); err != nil {
			t.Fatal(err)
		}
	}
	running(ctx, t, kube, managerNS, "app=chaos-controller-manager")
	// Its controllers start once its caches have synced, a few seconds
	// after the process: the first experiment would otherwise wait them
	// out inside its own timeout.
	if err := wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		logs, err := kube.CoreV1().Pods(managerNS).GetLogs(podName(ctx, kube, managerNS, "app=chaos-controller-manager"), &corev1.PodLogOptions{}).DoRaw(ctx)
		return err == nil && strings.Contains(string(logs), "Starting workers"), nil
	}); err != nil {
		t.Fatal("the Chaos Mesh controller-manager started no controller within 2m")
	}
}

// runningPod makes a victim pod labelled app in ns and waits until it
// runs.
func runningPod(ctx context.Context, t *testing.T, kube kubernetes.Interface, ns, name, app string) string {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{TerminationGracePeriodSeconds: ptr.To(int64(1)), Containers: []corev1.Container{{Name: "app", Image: victimImage,
			ImagePullPolicy: corev1.PullNever, Args: []string{"external", "--addr=:9090"}}}}}
	if _, err := kube.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	running(ctx, t, kube, ns, "app="+app)
	return name
}

// running waits (2 minutes at most) until a pod matching selector runs.
func running(ctx context.Context, t *testing.T, kube kubernetes.Interface, ns, selector string) {
	var last string
	if err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		pods, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil || len(pods.Items) == 0 {
			return false, nil
		}
		for _, p := range pods.Items {
			last = string(p.Status.Phase)
			if p.Status.Phase == corev1.PodRunning {
				return true, nil
			}
		}
		return false, nil
	}); err != nil {
		t.Fatalf("no pod %s in %s runs within 2m (last phase %q)", selector, ns, last)
	}
}

func podName(ctx context.Context, kube kubernetes.Interface, ns, selector string) string {
	pods, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil || len(pods.Items) == 0 {
		return ""
	}
	return pods.Items[0].Name
}
