package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/steadystate-dev/steadystate/cluster/image"
	"github.com/steadystate-dev/steadystate/cluster/kind/kindtest"
	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/fixtures"
	"github.com/steadystate-dev/steadystate/subjectfile"
)

// jobRun is one conformance Job: a subject file and what its bundle must say.
type jobRun struct {
	subject  string // fixtures/upstream/<subject>.yaml
	complete bool   // the Job completes (the subject passed) or fails
	verify   string // in steadystate verify's output
}

// The steadystate image, run as the Job of fixtures/job on a kind cluster,
// with no checkout and no Docker engine inside: controller-runtime v0.17.3
// (the fix) passes, v0.17.2 (the bug) breaks leader/only-holder-writes,
// and each bundle, copied off the node, verifies here.
func TestConformAsAJobOnKind(t *testing.T) {
	if os.Getenv("STEADYSTATE_REQUIRE_KIND") != "1" {
		t.Skip("needs a Docker engine, the kind node image and the images of make images: make job-test runs it")
	}
	runs := []jobRun{
		{"controller-runtime-v0.17.3", true, "verdicts stand: the subject passed"},
		{"controller-runtime-v0.17.2", false, "leader/only-holder-writes"},
	}
	ctx, cancel := context.WithTimeout(t.Context(), 40*time.Minute)
	defer cancel()
	dir := t.TempDir()
	var archives []string
	for _, r := range runs {
		archives = append(archives, subjectImage(t, r.subject, dir))
	}

	p := kindtest.New(ctx, t, "steadystate-job-test")
	for _, img := range []string{"steadystate/steadystate:dev", "steadystate/faultproxy:dev"} {
		if err := p.LoadImage(ctx, img); err != nil {
			t.Fatalf("load %s (make images builds it): %v", img, err)
		}
	}
	for _, a := range archives {
		if err := p.LoadImageArchive(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	rest := p.KubernetesRestConfig()
	kube := kubernetes.NewForConfigOrDie(rest)
	for _, r := range runs {
		t.Run(r.subject, func(t *testing.T) {
			bundle := runJob(ctx, t, kube, func() error { return fixtures.Apply(ctx, rest, fixtures.Job, "job/conform.yaml") }, r)
			out, err := exec.Command(binary, "verify", bundle).CombinedOutput()
			if err != nil || !strings.Contains(string(out), r.verify) {
				t.Errorf("steadystate verify %s: %v\n%s\nwant %q", bundle, err, out, r.verify)
			}
		})
	}
}

// subjectImage packs the release's binary (make upstream-bins) into its
// subject file's run.pod.image, as an archive for kind to load.
func subjectImage(t *testing.T, subject, dir string) string {
	root, err := local.CacheRoot()
	if err != nil {
		t.Fatal(err)
	}
	upDir := filepath.Join(root, "upstream")
	if d := os.Getenv("UPSTREAM_DIR"); d != "" {
		upDir = d
	}
	f, err := subjectfile.Load(filepath.Join("..", "..", "fixtures", "upstream", subject+".yaml"), subjectfile.Options{UpstreamDir: upDir})
	if err != nil {
		t.Fatal(err)
	}
	bin, err := f.PodBinary()
	if err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(dir, subject+".tar")
	if err := image.FromBinary(bin, f.Run.Pod.Image, archive); err != nil {
		t.Fatalf("%v (make upstream-bins builds %s)", err, bin)
	}
	return archive
}

const jobNS, jobName = "steadystate", "steadystate-conform"

// runJob gives the Job r's subject file, runs it to its end, keeps its log
// and returns its bundle, copied off the kind node into the artifacts.
func runJob(ctx context.Context, t *testing.T, kube kubernetes.Interface, apply func() error, r jobRun) string {
	// A Job's pod template cannot change: the previous run's Job goes.
	jobs := kube.BatchV1().Jobs(jobNS)
	if err := jobs.Delete(ctx, jobName, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationForeground)}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := jobs.Get(ctx, jobName, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	}); err != nil {
		t.Fatalf("the previous Job is not gone: %v", err)
	}
	if err := apply(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "upstream", r.subject+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "steadystate-subject", Namespace: jobNS}, Data: map[string]string{"subject.yaml": string(data)}}
	if _, err := kube.CoreV1().ConfigMaps(jobNS).Update(ctx, cm, metav1.UpdateOptions{}); apierrors.IsNotFound(err) {
		_, err = kube.CoreV1().ConfigMaps(jobNS).Create(ctx, cm, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
	} else if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var job *batchv1.Job
	err = wait.PollUntilContextTimeout(ctx, 2*time.Second, 15*time.Minute, true, func(ctx context.Context) (bool, error) {
		job, err = jobs.Get(ctx, jobName, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		return jobEnded(job) != "", nil
	})
	log := jobLog(ctx, t, kube)
	if err := os.WriteFile(filepath.Join(artifactsDir(t), r.subject+"-job.log"), log, 0o644); err != nil {
		t.Error(err)
	}
	if err != nil {
		t.Fatalf("the Job did not end within 15m: %v\n%s", err, log)
	}
	t.Logf("Job for %s: %s in %s", r.subject, jobEnded(job), time.Since(start).Round(time.Second))
	if want := map[bool]string{true: "Complete", false: "Failed"}[r.complete]; jobEnded(job) != want {
		t.Errorf("Job %s, want %s; its log:\n%s", jobEnded(job), want, log)
	}
	if !bytes.Contains(log, []byte("conform: bundle /results/conformance.tar.gz")) {
		t.Errorf("the Job's log does not name its bundle:\n%s", log)
	}
	bundle := filepath.Join(artifactsDir(t), r.subject+".tar.gz")
	node := "steadystate-job-test-control-plane"
	if out, err := exec.CommandContext(ctx, "docker", "cp", node+":/var/lib/steadystate/results/conformance.tar.gz", bundle).CombinedOutput(); err != nil {
		t.Fatalf("copy the bundle off %s: %v\n%s", node, err, out)
	}
	return bundle
}

// jobEnded is "Complete" or "Failed" once the Job has ended, else "".
func jobEnded(j *batchv1.Job) string {
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return string(c.Type)
		}
	}
	return ""
}

// jobLog is the log of the Job's pod.
func jobLog(ctx context.Context, t *testing.T, kube kubernetes.Interface) []byte {
	pods, err := kube.CoreV1().Pods(jobNS).List(ctx, metav1.ListOptions{LabelSelector: "job-name=" + jobName})
	if err != nil || len(pods.Items) == 0 {
		return fmt.Appendf(nil, "no pod of the Job (%v)", err)
	}
	out, err := kube.CoreV1().Pods(jobNS).GetLogs(pods.Items[0].Name, &corev1.PodLogOptions{}).DoRaw(ctx)
	if err != nil {
		return fmt.Appendf(nil, "no log of pod %s: %v (%s)", pods.Items[0].Name, err, pods.Items[0].Status.Phase)
	}
	return out
}

// artifactsDir is where the Jobs' logs are kept: $ARTIFACTS, or the
// test's temporary folder.
func artifactsDir(t *testing.T) string {
	if d := os.Getenv("ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err == nil {
			return d
		}
	}
	return t.TempDir()
}
