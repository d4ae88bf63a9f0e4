package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/steadystate-dev/steadystate/cluster/image"
	"github.com/steadystate-dev/steadystate/cluster/kind/kindtest"
	"github.com/steadystate-dev/steadystate/cluster/local"
	"github.com/steadystate-dev/steadystate/fixtures"
	"github.com/steadystate-dev/steadystate/runs/campaign"
	"github.com/steadystate-dev/steadystate/subjectfile"
)

// jobRun is one conformance Job: a subject file and what its bundle must say.
type jobRun struct {
	subject  string // fixtures/upstream/<subject>.yaml
	complete bool   // the Job completes (the subject passed, verify exits 0) or fails (a finding: verify exits 1)
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
		{"controller-runtime-v0.17.3", true, "verify: PASSED"},
		{"controller-runtime-v0.17.2", false, "leader/only-holder-writes"},
	}
	ctx, cancel := context.WithTimeout(t.Context(), 65*time.Minute)
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
			bundle, log := runJob(ctx, t, kube, func() error { return fixtures.Apply(ctx, rest, fixtures.Job, "job/conform.yaml") }, r)
			d := digestPrinted.FindSubmatch(log)
			if d == nil {
				t.Fatalf("the Job's log names no manifest digest:\n%s", log)
			}
			out, stderr, code := runCode(t, "verify", "--digest", string(d[1]), bundle)
			want := map[bool]int{true: 0, false: 1}[r.complete]
			if code != want || !strings.Contains(out, r.verify) || !strings.Contains(out, "is intact and its verdicts stand") {
				t.Errorf("steadystate verify %s: exit %d, want %d\n%s%s\nwant %q", bundle, code, want, out, stderr, r.verify)
			}
		})
	}
	t.Run("campaign", func(t *testing.T) { runCampaign(ctx, t, kube, rest) })
}

// The campaign's figures on kind: two indices, one seed each, a one-minute
// budget, exploring the leader capability of controller-runtime v0.17.3.
const (
	campaignName    = "steadystate-campaign"
	campaignIndices = 2
	campaignSubject = "controller-runtime-v0.17.3"
)

// runCampaign runs a campaign of campaignIndices indices as an Indexed Job
// (steadystate campaign job), copies every index's results off the kind
// node, gathers them into one bundle (steadystate campaign gather) and
// verifies it: complete, every index present.
func runCampaign(ctx context.Context, t *testing.T, kube kubernetes.Interface, rest *rest.Config) {
	manifest, err := exec.Command(binary, "campaign", "job", "--name", campaignName, "--indices", strconv.Itoa(campaignIndices),
		"--seeds-per-index", "1", "--seed", "1", "--budget", "1m").Output()
	if err != nil {
		t.Fatalf("steadystate campaign job: %v", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "campaign.yaml"), manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	jobs := kube.BatchV1().Jobs(jobNS)
	if err := fixtures.Apply(ctx, rest, os.DirFS(dir), "campaign.yaml"); err != nil {
		t.Fatal(err)
	}
	putSubject(ctx, t, kube, campaignSubject)
	start := time.Now()
	var job *batchv1.Job
	err = wait.PollUntilContextTimeout(ctx, 2*time.Second, 20*time.Minute, true, func(ctx context.Context) (bool, error) {
		job, err = jobs.Get(ctx, campaignName, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		return jobEnded(job) != "", nil
	})
	logs := podLogs(ctx, t, kube, campaignName)
	if err := os.WriteFile(filepath.Join(artifactsDir(t), "campaign-job.log"), logs, 0o644); err != nil {
		t.Error(err)
	}
	if err != nil {
		t.Fatalf("the campaign's Job did not end within 20m: %v\n%s", err, logs)
	}
	t.Logf("campaign Job: %s in %s", jobEnded(job), time.Since(start).Round(time.Second))
	if jobEnded(job) != "Complete" {
		t.Errorf("campaign Job %s, want Complete; its pods' logs:\n%s", jobEnded(job), logs)
	}
	results := filepath.Join(artifactsDir(t), "campaign")
	node := "steadystate-job-test-control-plane"
	if out, err := exec.CommandContext(ctx, "docker", "cp", node+":"+campaign.HostResults+"/"+string(job.UID), results).CombinedOutput(); err != nil {
		t.Fatalf("copy the campaign's results off %s: %v\n%s", node, err, out)
	}
	bundle := filepath.Join(artifactsDir(t), "campaign.tar.gz")
	out, err := exec.Command(binary, "campaign", "gather", "--name", campaignName, "--indices", strconv.Itoa(campaignIndices), "--out", bundle, results).CombinedOutput()
	t.Logf("steadystate campaign gather (%v):\n%s", err, out)
	if !strings.Contains(string(out), fmt.Sprintf("%d of %d indices present", campaignIndices, campaignIndices)) {
		t.Fatalf("the gathered bundle does not hold every index:\n%s", out)
	}
	d := digestPrinted.FindSubmatch(out)
	if d == nil {
		t.Fatalf("campaign gather printed no manifest digest:\n%s", out)
	}
	// The bundle is accepted and complete; the explorations of the fixed
	// release find nothing, though some schedules end in errors on kind
	// (a killed replica comes back under a new name): exit 0, or 3 with
	// the result ERROR, never 1.
	vout, verr, code := runCode(t, "verify", "--digest", string(d[1]), bundle)
	if (code != 0 && code != 3) || !strings.Contains(vout, "is intact and its verdicts stand") || !strings.Contains(vout, "verify: the campaign is complete") {
		t.Errorf("steadystate verify %s: exit %d\n%s%s\nwant the campaign complete, no finding", bundle, code, vout, verr)
	}
	if out, err := exec.Command(binary, "html", results).CombinedOutput(); err != nil {
		t.Errorf("steadystate html %s: %v\n%s", results, err, out)
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
// and returns its bundle, copied off the kind node into the artifacts, and
// the log.
func runJob(ctx context.Context, t *testing.T, kube kubernetes.Interface, apply func() error, r jobRun) (string, []byte) {
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
	putSubject(ctx, t, kube, r.subject)
	start := time.Now()
	var job *batchv1.Job
	err := wait.PollUntilContextTimeout(ctx, 2*time.Second, 15*time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
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
	return bundle, log
}

// putSubject gives the Jobs the subject file of fixtures/upstream, in the
// ConfigMap their pods mount.
func putSubject(ctx context.Context, t *testing.T, kube kubernetes.Interface, subject string) {
	data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "upstream", subject+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: campaign.SubjectMap, Namespace: jobNS}, Data: map[string]string{"subject.yaml": string(data)}}
	if _, err := kube.CoreV1().ConfigMaps(jobNS).Update(ctx, cm, metav1.UpdateOptions{}); apierrors.IsNotFound(err) {
		_, err = kube.CoreV1().ConfigMaps(jobNS).Create(ctx, cm, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
	} else if err != nil {
		t.Fatal(err)
	}
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
	return podLogs(ctx, t, kube, jobName)
}

// podLogs are the logs of the Job job's pods, each under its name.
func podLogs(ctx context.Context, _ *testing.T, kube kubernetes.Interface, job string) []byte {
	pods, err := kube.CoreV1().Pods(jobNS).List(ctx, metav1.ListOptions{LabelSelector: "job-name=" + job})
	if err != nil || len(pods.Items) == 0 {
		return fmt.Appendf(nil, "no pod of the Job (%v)", err)
	}
	if len(pods.Items) == 1 {
		out, err := kube.CoreV1().Pods(jobNS).GetLogs(pods.Items[0].Name, &corev1.PodLogOptions{}).DoRaw(ctx)
		if err != nil {
			return fmt.Appendf(nil, "no log of pod %s: %v (%s)", pods.Items[0].Name, err, pods.Items[0].Status.Phase)
		}
		return out
	}
	var all []byte
	for _, p := range pods.Items {
		out, err := kube.CoreV1().Pods(jobNS).GetLogs(p.Name, &corev1.PodLogOptions{}).DoRaw(ctx)
		if err != nil {
			out = fmt.Appendf(nil, "no log: %v (%s)\n", err, p.Status.Phase)
		}
		all = fmt.Appendf(all, "==> pod %s (index %s, %s)\n%s\n", p.Name, p.Annotations[batchv1.JobCompletionIndexAnnotation], p.Status.Phase, out)
	}
	return all
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
