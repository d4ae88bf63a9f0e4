package foreground

import (
	"context"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL reads best unqualified.
	. "github.com/onsi/gomega"    //nolint:revive // as above.
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/steadystate-dev/steadystate/suites/judge"
	"github.com/steadystate-dev/steadystate/suites/oracle"
	"github.com/steadystate-dev/steadystate/suites/subject"
	"github.com/steadystate-dev/steadystate/suites/subjectfile"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// composition is the subject, what blocks its deletions, and the recorded
// history of one namespace's claims.
type composition struct {
	ns      string
	dyn     dynamic.Interface
	binding *subjectfile.ForegroundComposite
	claims  schema.GroupVersionResource
	history *oracle.History
	// ext and manageds are the external system the claims are backed by
	// and its managed objects' history; nil for a subject whose binding
	// has a Block.
	ext      subject.ExternalSystem
	manageds *oracle.History
	blocker  blocker
}

func start(ctx context.Context, ns string) *composition {
	subj := subject.Composite()
	c := &composition{ns: ns, dyn: dynamic.NewForConfigOrDie(testenv.Get().REST), binding: subj.Claims()}
	gv, err := schema.ParseGroupVersion(c.binding.Template["apiVersion"].(string))
	Expect(err).NotTo(HaveOccurred(), "claim template apiVersion")
	c.claims = gv.WithResource(c.binding.Resource)
	_, c.ext = subj.StartComposite(ctx, ns)
	// A controller may make its claim kind when it starts (from a
	// definition of its own).
	if err := testenv.Served(ctx, c.dyn, c.claims, ns, "capabilities.foregroundComposite.resource", time.Minute); err != nil {
		Fail(err.Error())
	}
	Expect(gcResynced(ctx)).To(Succeed())
	if c.external() {
		c.blocker = externalBlocker{c.ext}
		c.manageds = testenv.RecordAs(ctx, judge.HistoryManageds, c.dyn, c.ext.Managed(), ns, "")
	} else {
		c.blocker = newFinalizerBlocker(ctx, c.dyn, c.binding.Block, ns)
	}
	c.history = testenv.RecordAs(ctx, judge.HistoryClaims, c.dyn, c.claims, ns, "")
	return c
}

// external reports whether the claims are backed by an external system the
// harness runs, which blocks their deletions.
func (c *composition) external() bool { return c.ext != nil }

// claim is the binding's template named name, with its external name when
// an external system backs it.
func (c *composition) claim(name, externalName string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: runtimeCopy(c.binding.Template)}
	obj.SetName(name)
	obj.SetNamespace(c.ns)
	if c.external() {
		Expect(unstructured.SetNestedField(obj.Object, externalName, strings.Split(c.ext.ExternalNamePath(), ".")...)).To(Succeed())
	}
	return obj
}

func (c *composition) create(ctx context.Context, name, externalName string) {
	_, err := c.dyn.Resource(c.claims).Namespace(c.ns).Create(ctx, c.claim(name, externalName), metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
}

func (c *composition) delete(ctx context.Context, name string) {
	Expect(c.dyn.Resource(c.claims).Namespace(c.ns).Delete(ctx, name, metav1.DeleteOptions{})).To(Succeed())
}

// managedUID is the UID of the managed object of claim name.
func (c *composition) managedUID(ctx context.Context, name string) string {
	obj, err := c.dyn.Resource(c.ext.Managed()).Namespace(c.ns).Get(ctx, name, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	return string(obj.GetUID())
}

// blockerMessage is the text property (b) looks for in the claim's
// condition messages, "" when the binding does not say.
func (c *composition) blockerMessage(name string) string {
	msg, err := subjectfile.Expand(c.binding.BlockerMessage, subjectfile.Vars{Namespace: c.ns, Name: name})
	Expect(err).NotTo(HaveOccurred())
	return msg
}

func runtimeCopy(m map[string]any) map[string]any {
	return (&unstructured.Unstructured{Object: m}).DeepCopy().Object
}

// until is the bound of the claims converging to want within conv.
func (c *composition) until(conv oracle.Convergence, want judge.Want) judge.Bound {
	return judge.Bound{Convergence: conv, History: judge.HistoryClaims, Want: want}
}
