package local

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// TestPodsRunOnSimulatedNodes starts a cluster with DefaultNodes simulated
// nodes and checks what a kubelet would otherwise be needed for: a
// Deployment's pods are scheduled onto the simulated nodes and become
// Ready, so the Deployment is Available; a Job's pod succeeds, so the Job
// completes. Then Stop leaves no process behind.
func TestPodsRunOnSimulatedNodes(t *testing.T) {
	b := requireBinaries(t)
	requireNodeBinaries(t, b)
	logDir := t.TempDir()
	c := startCluster(t, Options{Name: "nodes", BinDir: binDirOf(b), LogDir: logDir, Nodes: DefaultNodes})
	t.Cleanup(func() {
		if t.Failed() {
			logTails(t, logDir, Scheduler, Kwok)
		}
	})
	pids := c.PIDs()
	for _, name := range []string{Etcd, APIServer, ControllerManager, Scheduler, Kwok} {
		if pids[name] == 0 {
			t.Fatalf("%s is not running after Start; running: %v", name, pids)
		}
	}
	cfg, err := c.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	kube := kubernetes.NewForConfigOrDie(cfg)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	labels := map[string]string{"app": "web"}
	pod := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "steadystate.invalid/none"}}},
	}
	deploy := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: pod,
		},
	}
	if _, err := kube.AppsV1().Deployments("default").Create(ctx, deploy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	jobPod := *pod.DeepCopy()
	jobPod.Labels = nil
	jobPod.Spec.RestartPolicy = corev1.RestartPolicyNever
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "once", Namespace: "default"},
		Spec:       batchv1.JobSpec{Template: jobPod},
	}
	if _, err := kube.BatchV1().Jobs("default").Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	var last string
	err = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		d, err := kube.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		last = "deployment status: " + d.Status.String()
		return available(d) && d.Status.ReadyReplicas == 3, nil
	})
	if err != nil {
		t.Fatalf("the Deployment is not Available with 3 ready replicas: %v; last %s", err, last)
	}
	pods, err := kube.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	ready := 0
	for _, p := range pods.Items {
		if !strings.HasPrefix(p.Spec.NodeName, "kwok-node-") {
			t.Errorf("pod %s is on node %q, not a simulated node", p.Name, p.Spec.NodeName)
		}
		if p.Status.Phase == corev1.PodRunning && podReady(&p) {
			ready++
		}
	}
	if ready != 3 {
		t.Errorf("%d of the Deployment's %d pods are Running and Ready, want 3", ready, len(pods.Items))
	}

	err = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		j, err := kube.BatchV1().Jobs("default").Get(ctx, "once", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		last = "job status: " + j.Status.String()
		return jobComplete(j), nil
	})
	if err != nil {
		t.Fatalf("the Job did not complete: %v; last %s", err, last)
	}

	pids = c.PIDs()
	workDir := c.WorkDir()
	if err := c.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	assertGone(t, pids, workDir)
	assertNoChildren(t)
}

func TestNoNodesRunsNoSchedulerNorKwok(t *testing.T) {
	b := requireBinaries(t)
	c := startCluster(t, Options{Name: "no-nodes", BinDir: binDirOf(b), NoNodes: true})
	pids := c.PIDs()
	for _, name := range []string{Scheduler, Kwok} {
		if pids[name] != 0 {
			t.Errorf("%s runs with NoNodes: %v", name, pids)
		}
	}
	cfg, err := c.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := kubernetes.NewForConfigOrDie(cfg).CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
	if err != nil || len(nodes.Items) != 0 {
		t.Errorf("nodes with NoNodes: %v (err %v), want none", nodes, err)
	}
}

func TestStartWithoutNodeBinariesSaysHow(t *testing.T) {
	b := requireBinaries(t)
	dir := t.TempDir()
	for _, path := range []string{b.Etcd, b.APIServer, b.ControllerManager} {
		if err := os.Symlink(path, filepath.Join(dir, filepath.Base(path))); err != nil {
			t.Fatal(err)
		}
	}
	before := workDirs(t, "no-kwok")
	c, err := Start(t.Context(), Options{Name: "no-kwok", BinDir: dir, Nodes: DefaultNodes})
	if err == nil {
		if err := c.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
	}
	for _, want := range []string{filepath.Join(dir, Scheduler), filepath.Join(dir, Kwok), "make kube-bins", "LOCAL_NODES=0"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Start error = %v, want it to contain %q", err, want)
		}
	}
	if after := workDirs(t, "no-kwok"); len(after) != len(before) {
		t.Errorf("a refused Start left a temporary folder: %v", after)
	}
}

func TestStartRejectsBadNodeOptions(t *testing.T) {
	deleting := filepath.Join(t.TempDir(), "stages.yaml")
	if err := os.WriteFile(deleting, []byte("apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata:\n  name: pod-delete\nspec:\n  next:\n    delete: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"negative nodes", Options{Nodes: -1}, "the number of simulated nodes is -1"},
		{"unreadable stages", Options{Nodes: DefaultNodes, PodStages: "/nonexistent/stages.yaml"}, "the pod stages file (LOCAL_POD_STAGES) cannot be read"},
		{"a stage that deletes pods", Options{Nodes: DefaultNodes, PodStages: deleting}, `stage "pod-delete" deletes pods`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Name = "bad-nodes"
			before := workDirs(t, tc.opts.Name)
			c, err := Start(t.Context(), tc.opts)
			if err == nil {
				if err := c.Stop(); err != nil {
					t.Errorf("Stop: %v", err)
				}
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Start error = %v, want it to contain %q", err, tc.want)
			}
			if after := workDirs(t, tc.opts.Name); len(after) != len(before) {
				t.Errorf("a refused Start left a temporary folder: %v", after)
			}
		})
	}
}

func TestKwokConfigHasTheNodeStageAndThePodStages(t *testing.T) {
	def, err := kwokConfig("")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"name: node-initialize", "name: pod-ready", "name: pod-complete"} {
		if !strings.Contains(string(def), want) {
			t.Errorf("the default kwok configuration lacks %q", want)
		}
	}
	// The pod remover deletes terminating pods (by UID); a KWOK stage that
	// deletes would delete by name.
	if strings.Contains(string(def), "delete: true") {
		t.Errorf("the default kwok configuration has a stage that deletes pods:\n%s", def)
	}
	custom := filepath.Join(t.TempDir(), "stages.yaml")
	if err := os.WriteFile(custom, []byte("apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata:\n  name: pod-stays-pending\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := kwokConfig(custom)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "name: node-initialize") || !strings.Contains(string(got), "name: pod-stays-pending") || strings.Contains(string(got), "name: pod-ready") {
		t.Errorf("with a pod stages file, the configuration is the node stage and that file's stages only:\n%s", got)
	}
}

// requireNodeBinaries skips (or fails, with STEADYSTATE_REQUIRE_BINARIES=1)
// when the binaries' folder lacks kube-scheduler or kwok.
func requireNodeBinaries(t testing.TB, b Binaries) {
	t.Helper()
	if missing := b.missingForNodes(); len(missing) > 0 {
		if os.Getenv("STEADYSTATE_REQUIRE_BINARIES") == "1" {
			t.Fatalf("simulated nodes need %v: run `make kube-bins`", missing)
		}
		t.Skipf("simulated nodes need %v, which are not built (`make kube-bins` builds them)", missing)
	}
}

// logTails logs the last lines of the components' logs.
func logTails(t *testing.T, dir string, components ...string) {
	for _, name := range components {
		data, _ := os.ReadFile(logPath(dir, name))
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		t.Logf("last lines of %s:\n%s", logPath(dir, name), strings.Join(lines[max(0, len(lines)-20):], "\n"))
	}
}

func available(d *appsv1.Deployment) bool {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func jobComplete(j *batchv1.Job) bool {
	for _, c := range j.Status.Conditions {
		if c.Type == batchv1.JobComplete {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func TestCheckPodStagesRefusesAStageThatDeletes(t *testing.T) {
	if err := checkPodStages(podStages); err != nil {
		t.Errorf("the default pod stages are refused: %v", err)
	}
	stage := func(name, next string) string {
		return "apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata:\n  name: " + name + "\nspec:\n  resourceRef: {apiGroup: v1, kind: Pod}\n  next:\n" + next
	}
	for _, tc := range []struct {
		name, data, want string
	}{
		{"a stage that deletes", stage("pod-ready", "    statusTemplate: x\n") + "\n---\n" + stage("pod-delete", "    delete: true\n"), `stage "pod-delete" deletes pods`},
		{"not a stage", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n", `document 1 is a "ConfigMap", not a KWOK Stage`},
		{"not YAML", "kind: [Stage\n", "document 1 is not YAML"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkPodStages([]byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("checkPodStages error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	if err := checkPodStages([]byte("---\n" + stage("pod-stays-pending", "    statusTemplate: x\n") + "\n---\n")); err != nil {
		t.Errorf("a stage that does not delete, between empty documents, is refused: %v", err)
	}
}
