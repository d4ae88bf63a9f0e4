package testenv

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NamespaceLabel marks namespaces made by steadystate, so a person can find
// and remove leftovers on a shared cluster.
const NamespaceLabel = "steadystate.dev/e2e"

// NewNamespace creates a namespace for the current spec, waits until its
// default service account exists (pods are refused before that), and
// deletes it when the spec ends. On a cluster the run's processes share
// (Share), a namespace whose spec passed is left to the cluster's
// teardown at the run's end: a spec that shares a cluster judges
// reconciledObjects, whose pass means the objects were deleted and
// leaves-nothing-behind held, so the namespace holds nothing of the spec's
// but events, and its deletion would cost the cluster about sixty requests
// (a list and a delete-collection for each namespaced resource) while
// the other processes' schedules run.
func NewNamespace(ctx context.Context, prefix string) string {
	kube := Get().Kube
	ns, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		GenerateName: prefix + "-",
		Labels:       map[string]string{NamespaceLabel: "true"},
	}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "create the spec's namespace")
	name := ns.Name
	shared := Run().Cluster.Share.Dir != ""
	DeferCleanup(func(ctx SpecContext) {
		if shared && CurrentSpecReport().State.Is(types.SpecStatePassed) {
			return
		}
		err := kube.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{})
		if !apierrors.IsNotFound(err) {
			Expect(err).NotTo(HaveOccurred(), "delete namespace %s", name)
		}
	})
	Eventually(func(ctx context.Context) error {
		_, err := kube.CoreV1().ServiceAccounts(name).Get(ctx, "default", metav1.GetOptions{})
		return err
	}).WithContext(ctx).WithTimeout(30*time.Second).WithPolling(50*time.Millisecond).
		Should(Succeed(), "the default service account of namespace %s", name)
	return name
}
