package chaosmesh

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/steadystate-dev/steadystate/cluster/image"
	"github.com/steadystate-dev/steadystate/runs/upstream"
)

// Chaos Mesh applies a NetworkChaos through its chaos-daemon, a
// privileged DaemonSet that enters a target pod's network namespace and
// runs ipset and iptables there. Its image is assembled here with no
// registry: the kind node's own Debian root filesystem, Debian's ipset
// packages, the chaos-daemon release (make upstream-bins) and the nsexec
// stand-in (./nsexec).
const (
	daemonImage = "steadystate.dev/upstream/chaos-daemon:dev"
	// baseImage is the root filesystem hack/kind-image.sh debootstraps
	// for the node image: Debian bookworm with iptables, iproute2,
	// util-linux (nsenter) and socat.
	baseImage = "steadystate/kind-base:bookworm"
	// daemonPort is chaos-daemon's gRPC port, the controller-manager's
	// default CHAOS_DAEMON_SERVICE_PORT.
	daemonPort = 31767
)

// buildDaemonImage builds daemonImage in the Docker engine.
func buildDaemonImage(ctx context.Context, t *testing.T, dir string) {
	if err := image.InEngine(ctx, baseImage); err != nil {
		t.Fatalf("%v\n  make kind-image builds it (the root filesystem of the offline kind node image)", err)
	}
	release, r := built(t, upstream.ChaosDaemon)
	ctxDir := filepath.Join(dir, "daemon")
	root, bin := filepath.Join(ctxDir, "root"), filepath.Join(ctxDir, "root", "usr", "local", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	run(ctx, t, dir, nil, "cp", filepath.Join(release, r.Binary), filepath.Join(bin, "chaos-daemon"))
	staticBuild(t, "./chaos/chaosmesh/nsexec", filepath.Join(bin, "nsexec"))
	debs := filepath.Join(dir, "debs")
	if err := os.MkdirAll(debs, 0o755); err != nil {
		t.Fatal(err)
	}
	download := []string{"apt-get", "download", "-q", "ipset", "libipset13"}
	if out, err := command(ctx, debs, nil, download...).CombinedOutput(); err != nil {
		t.Logf("apt-get download: %v: %s; updating the package lists", err, out)
		run(ctx, t, debs, nil, "apt-get", "update", "-q")
		run(ctx, t, debs, nil, download...)
	}
	files, _ := filepath.Glob(filepath.Join(debs, "*.deb"))
	for _, f := range files {
		run(ctx, t, dir, nil, "dpkg-deb", "-x", f, root)
	}
	dockerfile := "FROM " + baseImage + "\nCOPY root/ /\nENTRYPOINT [\"/usr/local/bin/chaos-daemon\"]\n"
	if err := os.WriteFile(filepath.Join(ctxDir, "Dockerfile"), []byte(dockerfile), 0o644); err != nil {
		t.Fatal(err)
	}
	// The legacy builder: Debian's docker.io has no buildx.
	run(ctx, t, ctxDir, []string{"DOCKER_BUILDKIT=0"}, "docker", "build", "-q", "-t", daemonImage, ".")
}

// deployDaemon runs chaos-daemon on every node, as Chaos Mesh's chart
// does (host PID namespace, privileged, the node's containerd socket),
// without mutual TLS, behind the headless Service whose endpoints the
// controller-manager looks up, and waits until it runs.
func deployDaemon(ctx context.Context, t *testing.T, kube kubernetes.Interface) {
	labels := map[string]string{"app.kubernetes.io/component": "chaos-daemon"}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "chaos-daemon", Labels: labels}, Spec: corev1.ServiceSpec{
		ClusterIP: corev1.ClusterIPNone, Selector: labels,
		Ports: []corev1.ServicePort{{Name: "grpc", Port: daemonPort}},
	}}
	if _, err := kube.CoreV1().Services(managerNS).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	hostPath := corev1.HostPathVolumeSource{Path: "/run/containerd"}
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "chaos-daemon"}, Spec: appsv1.DaemonSetSpec{
		Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
			HostPID: true,
			Containers: []corev1.Container{{
				Name: "chaos-daemon", Image: daemonImage, ImagePullPolicy: corev1.PullNever,
				Args: []string{"--runtime", "containerd", "--runtime-socket-path", "/host-run/containerd.sock",
					"--grpc-port", "31767", "--http-port", "31766"},
				Ports:           []corev1.ContainerPort{{Name: "grpc", ContainerPort: daemonPort}},
				SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true)},
				VolumeMounts:    []corev1.VolumeMount{{Name: "socket-path", MountPath: "/host-run"}},
			}},
			Volumes: []corev1.Volume{{Name: "socket-path", VolumeSource: corev1.VolumeSource{HostPath: &hostPath}}},
		}},
	}}
	if _, err := kube.AppsV1().DaemonSets(managerNS).Create(ctx, ds, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	running(ctx, t, kube, managerNS, "app.kubernetes.io/component=chaos-daemon")
}

// startProbe runs a pod labelled app that tries a TCP connection to
// addr every 200 ms and logs "reach" or "cut" for each try.
func startProbe(ctx context.Context, t *testing.T, kube kubernetes.Interface, ns, name, app, addr string) {
	loop := "while :; do if socat -u OPEN:/dev/null TCP:" + addr + ",connect-timeout=1 >/dev/null 2>&1; " +
		"then echo reach; else echo cut; fi; sleep 0.2; done"
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{TerminationGracePeriodSeconds: ptr.To(int64(1)), Containers: []corev1.Container{{Name: "probe",
			Image: daemonImage, ImagePullPolicy: corev1.PullNever, Command: []string{"/bin/sh", "-c", loop}}}}}
	if _, err := kube.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	running(ctx, t, kube, ns, "app="+app)
}

// probeSays waits (within) until the probe's newest try logged want.
func probeSays(ctx context.Context, kube kubernetes.Interface, ns, name, want string, within time.Duration) error {
	return wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, within, true, func(ctx context.Context) (bool, error) {
		logs, err := kube.CoreV1().Pods(ns).GetLogs(name, &corev1.PodLogOptions{TailLines: ptr.To(int64(1))}).DoRaw(ctx)
		return err == nil && strings.TrimSpace(string(logs)) == want, nil
	})
}

// staticBuild builds a package of this repository into out, static.
func staticBuild(t *testing.T, pkg, out string) {
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", pkg, err, b)
	}
}

func command(ctx context.Context, dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	return cmd
}

// run runs a command in dir and fails the test with its output when it
// fails.
func run(ctx context.Context, t *testing.T, dir string, env []string, args ...string) {
	if out, err := command(ctx, dir, env, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
