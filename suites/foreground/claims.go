package foreground

import (
	"context"

	. "github.com/onsi/gomega" //nolint:revive // Gomega reads best unqualified.
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
	"github.com/steadystate-dev/steadystate/reference/external"
	"github.com/steadystate-dev/steadystate/suites/judge"
	"github.com/steadystate-dev/steadystate/suites/oracle"
	"github.com/steadystate-dev/steadystate/suites/subject"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

var (
	claims   = refv1.GroupVersion.WithResource("claims")
	manageds = refv1.GroupVersion.WithResource("manageds")
)

// composition is the subject, its external system and the recorded
// histories of one namespace's claims and managed resources.
type composition struct {
	ns       string
	dyn      dynamic.Interface
	ext      *external.Client
	claims   *oracle.History
	manageds *oracle.History
}

func start(ctx context.Context, ns string) *composition {
	subj := subject.Composite()
	Expect(gcReady(ctx, testenv.Get().Kube, dynamic.NewForConfigOrDie(testenv.Get().REST))).To(Succeed())
	url, ext := subject.External(ctx, ns)
	subj.StartComposite(ctx, ns, url)
	c := &composition{ns: ns, dyn: dynamic.NewForConfigOrDie(testenv.Get().REST), ext: ext}
	c.claims = testenv.RecordAs(ctx, judge.HistoryClaims, c.dyn, claims, ns, "")
	c.manageds = testenv.Record(ctx, c.dyn, manageds, ns)
	testenv.KeepLog(judge.LogExternal, func() (any, error) { return c.ext.Log(context.Background()) })
	return c
}

func (c *composition) claim(name, externalName string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": refv1.GroupVersion.String(), "kind": "Claim",
		"metadata": map[string]any{"name": name, "namespace": c.ns},
		"spec":     map[string]any{"externalName": externalName},
	}}
}

func (c *composition) create(ctx context.Context, name, externalName string) {
	_, err := c.dyn.Resource(claims).Namespace(c.ns).Create(ctx, c.claim(name, externalName), metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
}

func (c *composition) delete(ctx context.Context, name string) {
	Expect(c.dyn.Resource(claims).Namespace(c.ns).Delete(ctx, name, metav1.DeleteOptions{})).To(Succeed())
}

func (c *composition) configure(ctx context.Context, cfg external.Config) {
	Expect(c.ext.Configure(ctx, cfg)).To(Succeed())
}

func isReady(key string) oracle.Match {
	return func(s oracle.State) (bool, string) {
		status, reason, msg, _, _ := judge.ClaimReady(s, key)
		return status == "True", "Ready=" + status + " " + reason + " " + msg
	}
}

func gone(key string) oracle.Match {
	return func(s oracle.State) (bool, string) {
		_, _, _, _, exists := judge.ClaimReady(s, key)
		return !exists, key + " still exists"
	}
}
