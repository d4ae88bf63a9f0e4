package subject

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
	"github.com/steadystate-dev/steadystate/reference/external"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// referenceExternal is the reference composite's external system.
type referenceExternal struct{ c *external.Client }

func (e referenceExternal) FailDeletes(ctx context.Context, on bool) error {
	return e.c.Configure(ctx, external.Config{FailDeletes: on})
}

func (e referenceExternal) SlowDeletes(ctx context.Context, d time.Duration) error {
	return e.c.Configure(ctx, external.Config{DeleteLatency: metav1.Duration{Duration: d}})
}

func (e referenceExternal) Owner(ctx context.Context, externalName string) (string, error) {
	res, err := e.c.Observe(ctx, externalName, "steadystate")
	return res.Owner, err
}

func (referenceExternal) Managed() schema.GroupVersionResource {
	return refv1.GroupVersion.WithResource("manageds")
}

func (referenceExternal) ExternalNamePath() string { return "spec.externalName" }

// startExternal starts the fake external system a composite manages, for
// the current spec in namespace ns. It returns the URL the subject uses
// and a client for the harness: locally an in-process server; with pods,
// a pod and a Service in ns (the subject reaches it by cluster DNS, the
// harness through the API server's service proxy).
func startExternal(ctx context.Context, ns string) (subjectURL string, c *external.Client) {
	if Placement() != Pods {
		srv := httptest.NewServer(external.NewServer().Handler())
		DeferCleanup(srv.Close)
		return srv.URL, &external.Client{Base: srv.URL}
	}
	kube := testenv.Get().Kube
	labels := map[string]string{"steadystate.dev/external": "system"}
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "external", Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(int32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "external", Image: RefctlImage, ImagePullPolicy: corev1.PullNever,
					Args:           []string{"external", "--addr=:9090"},
					Ports:          []corev1.ContainerPort{{ContainerPort: 9090}},
					ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(9090)}}, PeriodSeconds: 1},
				}}},
			},
		},
	}
	_, err := kube.AppsV1().Deployments(ns).Create(ctx, dep, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "external"},
		Spec:       corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{Port: 9090, TargetPort: intstr.FromInt32(9090)}}},
	}
	_, err = kube.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	env := testenv.Get()
	httpClient, err := rest.HTTPClientFor(env.REST)
	Expect(err).NotTo(HaveOccurred())
	c = &external.Client{Base: fmt.Sprintf("%s/api/v1/namespaces/%s/services/external:9090/proxy", env.REST.Host, ns), HTTP: httpClient}
	Eventually(func() error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.Base+"/log", nil)
		if err != nil {
			return err
		}
		resp, err := httpClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("the external system answers %s", resp.Status)
		}
		return nil
	}).WithContext(ctx).WithTimeout(60*time.Second).WithPolling(250*time.Millisecond).Should(Succeed(), "the external system's pod should serve")
	return "http://external:9090", c
}
