package runner

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// Controller is the controller container of a subject in pods, and what
// its pods need around it.
type Controller struct {
	// Name is the Deployment's, and the pods' PodLabel value.
	Name  string
	Image string
	Args  []string
	// Env is set in order, after POD_NAME (which values may use as
	// $(POD_NAME)).
	Env [][2]string
	// ClusterRole is bound to the pods' ServiceAccount.
	ClusterRole string
	// Certs, when set, is a serving certificate (tls.crt, tls.key,
	// ca.crt) mounted at CertDir.
	Certs map[string][]byte
}

// Paths in a subject's pod: the sidecar writes the controller's
// kubeconfig into a volume both containers mount; /tmp is writable (an
// image FROM scratch has no other place to write); the serving
// certificate is mounted read-only.
const (
	sharedDir  = "/shared"
	Kubeconfig = sharedDir + "/kubeconfig"
	TmpDir     = "/tmp"
	CertDir    = "/certs"
	// PodName is the pod's name in a container's args and env: the
	// kubelet expands it.
	PodName = "$(POD_NAME)"
	// Port is a port of the pod's own network namespace, free for the
	// controller's servers (a webhook's).
	Port = 9443
)

// grant gives the pods of c in namespace ns their ServiceAccount, bound to
// c's ClusterRole, and c's certificate as a Secret; cleanup takes back
// the binding and the Secret.
func grant(ctx context.Context, kube kubernetes.Interface, ns string, c Controller) (cleanup func(context.Context), err error) {
	_, err = kube.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "subject"}}, metav1.CreateOptions{})
	if err := allowExisting(err); err != nil {
		return nil, err
	}
	if c.Certs != nil {
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: c.Name + "-certs"}, Data: c.Certs}
		if _, err := kube.CoreV1().Secrets(ns).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("the serving certificate of %s: %w", c.Name, err)
		}
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "steadystate-" + ns + "-" + c.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: c.ClusterRole},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "subject", Namespace: ns}},
	}
	if _, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); allowExisting(err) != nil {
		return nil, err
	}
	// Best effort, as the Deployment's delete in Stop: the Secret goes
	// with the namespace, and a binding left by a failed delete is named
	// after the run's namespace.
	return func(ctx context.Context) {
		_ = kube.RbacV1().ClusterRoleBindings().Delete(ctx, binding.Name, metav1.DeleteOptions{})
		if c.Certs != nil {
			_ = kube.CoreV1().Secrets(ns).Delete(ctx, c.Name+"-certs", metav1.DeleteOptions{})
		}
	}, nil
}

// allowExisting accepts AlreadyExists: several subjects of a spec share
// one service account.
func allowExisting(err error) error {
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// deployment runs c as the main container, the fault proxy as a native
// sidecar (an init container that keeps running, started and healthy
// before the controller starts), sharing the kubeconfig the proxy writes.
func deployment(c Controller, proxyImage string, replicas int, pull corev1.PullPolicy) *appsv1.Deployment {
	labels := map[string]string{PodLabel: c.Name}
	podName := corev1.EnvVar{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}
	env := []corev1.EnvVar{podName} // first: the others may use $(POD_NAME)
	for _, kv := range c.Env {
		env = append(env, corev1.EnvVar{Name: kv[0], Value: kv[1]})
	}
	mounts := []corev1.VolumeMount{{Name: "shared", MountPath: sharedDir}, {Name: "tmp", MountPath: TmpDir}}
	volumes := []corev1.Volume{
		{Name: "shared", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}
	if c.Certs != nil {
		mounts = append(mounts, corev1.VolumeMount{Name: "certs", MountPath: CertDir, ReadOnly: true})
		volumes = append(volumes, corev1.Volume{Name: "certs", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: c.Name + "-certs"}}})
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: c.Name, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(int32(replicas)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					ServiceAccountName:            "subject",
					TerminationGracePeriodSeconds: ptr.To(int64(15)),
					InitContainers: []corev1.Container{{
						Name: "proxy", Image: proxyImage, ImagePullPolicy: pull,
						RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways),
						Args:          []string{"--kubeconfig-out=" + Kubeconfig, fmt.Sprintf("--control=:%d", controlPort), "--linger=2s"},
						Env:           []corev1.EnvVar{podName},
						Ports:         []corev1.ContainerPort{{Name: "control", ContainerPort: controlPort}},
						StartupProbe: &corev1.Probe{
							ProbeHandler:     corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(controlPort)}},
							PeriodSeconds:    1,
							FailureThreshold: 60,
						},
						VolumeMounts: mounts[:1],
					}},
					Containers: []corev1.Container{{
						Name: ControllerContainer, Image: c.Image, ImagePullPolicy: pull,
						Args: c.Args, Env: env, VolumeMounts: mounts,
					}},
					Volumes: volumes,
				},
			},
		},
	}
}
