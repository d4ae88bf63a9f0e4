package campaign

import (
	"bytes"
	"fmt"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// The names the campaign's Job shares with conform's (fixtures/job): its
// namespace, service account and the ConfigMap holding the subject file.
const (
	Namespace      = "steadystate"
	ServiceAccount = "steadystate"
	SubjectMap     = "steadystate-subject"
	// HostResults is the folder on a node that a Job without a claim
	// writes its results below: <HostResults>/<the Job's uid>/index-<i>.
	HostResults = "/var/lib/steadystate/campaign"
)

// Job is a campaign as an Indexed Job: Indices indices, Parallelism of
// them at once, index i exploring the subject file of the ConfigMap
// SubjectMap with the seeds Seeds(FirstSeed, SeedsPerIndex, i), each
// for Budget.
type Job struct {
	// Name is the Job's name; Image the steadystate image.
	Name, Image string
	// Indices is how many indices the Job has, Parallelism how many run
	// at once.
	Indices, Parallelism int
	// FirstSeed is index 0's first seed; SeedsPerIndex how many seeds
	// each index explores, one exploration run each, of Budget.
	FirstSeed     uint64
	SeedsPerIndex int
	Budget        time.Duration
	// Capability is the capability explored (empty: the subject's first
	// that exploration drives).
	Capability string
	// Claim, when set, is a PersistentVolumeClaim (ReadWriteMany, for
	// indices on several nodes) the results are written to; empty: a
	// folder on each index's node, HostResults.
	Claim string
}

// Check refuses a campaign that cannot run, naming the flag.
func (j Job) Check() error {
	switch {
	case j.Name == "":
		return fmt.Errorf("--name is empty: name the campaign's Job")
	case j.Indices < 1:
		return fmt.Errorf("--indices %d: a campaign has at least one index", j.Indices)
	case j.Parallelism < 1:
		return fmt.Errorf("--parallelism %d: at least one index runs at a time", j.Parallelism)
	case j.SeedsPerIndex < 1:
		return fmt.Errorf("--seeds-per-index %d: each index explores at least one seed", j.SeedsPerIndex)
	case j.Budget <= 0:
		return fmt.Errorf("--budget %s: each seed's exploration needs a budget, such as 10m", j.Budget)
	}
	return nil
}

// Manifest is the campaign's objects as YAML, to apply: the namespace,
// service account and cluster role binding conform's Job has
// (fixtures/job/conform.yaml), and the Indexed Job.
func (j Job) Manifest() ([]byte, error) {
	if err := j.Check(); err != nil {
		return nil, err
	}
	objects := []any{
		&corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			// The Job writes to a hostPath and runs as root to do so.
			ObjectMeta: metav1.ObjectMeta{Name: Namespace, Labels: map[string]string{"pod-security.kubernetes.io/enforce": "privileged"}}},
		&corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
			ObjectMeta: metav1.ObjectMeta{Name: ServiceAccount, Namespace: Namespace}},
		// The suites create namespaces, apply the subject's CRDs and
		// RBAC, run its Deployments and delete its pods.
		&rbacv1.ClusterRoleBinding{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
			ObjectMeta: metav1.ObjectMeta{Name: "steadystate"},
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "cluster-admin"},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: ServiceAccount, Namespace: Namespace}}},
		j.job(),
	}
	var out bytes.Buffer
	for i, o := range objects {
		data, err := yaml.Marshal(o)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			out.WriteString("---\n")
		}
		out.Write(data)
	}
	return out.Bytes(), nil
}

// The pod's environment variables the downward API fills: its index and
// its Job's uid.
const (
	envIndex = "STEADYSTATE_INDEX"
	envJob   = "STEADYSTATE_JOB_UID"
)

func (j Job) job() *batchv1.Job {
	args := []string{"campaign", "index", "--index", "$(" + envIndex + ")", "--job-uid", "$(" + envJob + ")",
		"--subject", "/subject/subject.yaml", "--seed", strconv.FormatUint(j.FirstSeed, 10),
		"--seeds-per-index", strconv.Itoa(j.SeedsPerIndex), "--budget", j.Budget.String(), "--out", "/results"}
	if j.Capability != "" {
		args = append(args, "--capability", j.Capability)
	}
	results := corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: HostResults, Type: ptr.To(corev1.HostPathDirectoryOrCreate)}}
	if j.Claim != "" {
		results = corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: j.Claim}}
	}
	field := func(path string) *corev1.EnvVarSource {
		return &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}
	}
	// Each seed may start schedules for its budget, and each schedule
	// runs to its end after it: an hour a seed beyond the budgets.
	deadline := int64(j.SeedsPerIndex) * int64((j.Budget + time.Hour).Seconds())
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: j.Name, Namespace: Namespace, Labels: map[string]string{"app.kubernetes.io/name": "steadystate-campaign"}},
		Spec: batchv1.JobSpec{
			CompletionMode: ptr.To(batchv1.IndexedCompletion),
			Completions:    ptr.To(int32(j.Indices)),
			Parallelism:    ptr.To(int32(j.Parallelism)),
			// An index whose pod fails is not run again, and does not
			// stop the others: the gathered bundle names it missing.
			BackoffLimitPerIndex:  ptr.To(int32(0)),
			ActiveDeadlineSeconds: ptr.To(deadline),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				ServiceAccountName: ServiceAccount,
				RestartPolicy:      corev1.RestartPolicyNever,
				SecurityContext:    &corev1.PodSecurityContext{RunAsUser: ptr.To(int64(0))},
				Containers: []corev1.Container{{
					Name: "steadystate", Image: j.Image, ImagePullPolicy: corev1.PullIfNotPresent, Args: args,
					Env: []corev1.EnvVar{
						{Name: envIndex, ValueFrom: field("metadata.annotations['" + batchv1.JobCompletionIndexAnnotation + "']")},
						{Name: envJob, ValueFrom: field("metadata.labels['" + batchv1.ControllerUidLabel + "']")},
						{Name: "PROVIDER", Value: "existing"},
						{Name: "SUBJECT_PLACEMENT", Value: "pods"},
						{Name: "ARTIFACTS", Value: "/tmp/artifacts"},
						{Name: "STEADYSTATE_CACHE_DIR", Value: "/tmp/cache"},
					},
					VolumeMounts: []corev1.VolumeMount{
						{Name: "subject", MountPath: "/subject", ReadOnly: true},
						{Name: "results", MountPath: "/results"},
						{Name: "tmp", MountPath: "/tmp"},
					},
				}},
				Volumes: []corev1.Volume{
					{Name: "subject", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: SubjectMap}}}},
					{Name: "results", VolumeSource: results},
					{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
				},
			}},
		},
	}
}
