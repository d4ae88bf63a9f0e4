package foreground

import (
	"context"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/steadystate-dev/steadystate/chaos"
	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/judge/oracle"
	"github.com/steadystate-dev/steadystate/subjectfile"
	"github.com/steadystate-dev/steadystate/suites/subject"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// Composition is the subject's claims in one namespace: the subject
// started for them, what holds up their deletions, and their recorded
// history. The foreground specs drive it, and so does exploration of a
// foreground-deleted composite.
type Composition struct {
	// Target is the subject's replicas, for faults.
	Target  chaos.Target
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
	// spec is the spec the composition runs for, whose evidence it
	// records.
	spec *testenv.Spec
}

// StartComposition runs the subject's controller for namespace ns (the
// spec is skipped when the subject is not a foreground-deleted composite),
// waits until its claims are served and the garbage collector knows every
// kind, and records the claims (and the managed objects, when the harness
// runs the external system).
func StartComposition(ctx context.Context, spec *testenv.Spec, ns string) *Composition {
	subj := subject.Composite()
	c := &Composition{ns: ns, dyn: dynamic.NewForConfigOrDie(testenv.Get().REST), binding: subj.Claims(), spec: spec}
	gv, err := schema.ParseGroupVersion(c.binding.Template["apiVersion"].(string))
	Expect(err).NotTo(HaveOccurred(), "claim template apiVersion")
	c.claims = gv.WithResource(c.binding.Resource)
	c.Target, c.ext = subj.StartComposite(ctx, spec, ns)
	// A controller may make its claim kind when it starts (from a
	// definition of its own).
	if err := testenv.Served(ctx, c.dyn, c.claims, ns, "capabilities.foregroundComposite.resource", time.Minute); err != nil {
		Fail(err.Error())
	}
	Expect(testenv.GCResynced(ctx)).To(Succeed())
	if c.ext != nil {
		c.blocker = externalBlocker{ext: c.ext, spec: spec}
		c.manageds = c.spec.RecordAs(ctx, judge.HistoryManageds, c.dyn, c.ext.Managed(), ns, "")
	} else {
		c.blocker = newFinalizerBlocker(ctx, spec, c.dyn, c.binding.Block, ns)
	}
	c.history = c.spec.RecordAs(ctx, judge.HistoryClaims, c.dyn, c.claims, ns, "")
	return c
}

// External is the external system the claims are backed by, which the
// harness runs and which blocks their deletions; nil when the binding's
// Block holds them up instead.
func (c *Composition) External() subject.ExternalSystem { return c.ext }

// Block holds up, from outside the subject, the deletion of what claim
// owns: the external system refuses deletes, or the binding's finalizer
// holds the owned objects. That it was in place is the premise
// foreground/deletion-blocked.
func (c *Composition) Block(ctx context.Context, claim string) error {
	return c.blocker.block(ctx, claim)
}

// Unblock lets every deletion Block held up complete.
func (c *Composition) Unblock(ctx context.Context) error { return c.blocker.unblock(ctx) }

// Resource is the claims' resource.
func (c *Composition) Resource() string { return c.claims.Resource }

// claim is the binding's template named name, with its external name when
// an external system backs it.
func (c *Composition) claim(name, externalName string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: runtimeCopy(c.binding.Template)}
	obj.SetName(name)
	obj.SetNamespace(c.ns)
	if c.ext != nil {
		Expect(unstructured.SetNestedField(obj.Object, externalName, strings.Split(c.ext.ExternalNamePath(), ".")...)).To(Succeed())
	}
	return obj
}

// Create makes claim name for the external resource externalName.
func (c *Composition) Create(ctx context.Context, name, externalName string) {
	_, err := c.dyn.Resource(c.claims).Namespace(c.ns).Create(ctx, c.claim(name, externalName), metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
}

// Delete deletes claim name.
func (c *Composition) Delete(ctx context.Context, name string) {
	Expect(c.dyn.Resource(c.claims).Namespace(c.ns).Delete(ctx, name, metav1.DeleteOptions{})).To(Succeed())
}

// ManagedUID is the UID of the managed object of claim name.
func (c *Composition) ManagedUID(ctx context.Context, name string) string {
	obj, err := c.dyn.Resource(c.ext.Managed()).Namespace(c.ns).Get(ctx, name, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	return string(obj.GetUID())
}

// BlockerMessage is the text property (b) looks for in the condition
// messages of claim name, "" when the binding does not say.
func (c *Composition) BlockerMessage(name string) string {
	msg, err := subjectfile.Expand(c.binding.BlockerMessage, subjectfile.Vars{Namespace: c.ns, Name: name})
	Expect(err).NotTo(HaveOccurred())
	return msg
}

func runtimeCopy(m map[string]any) map[string]any {
	return (&unstructured.Unstructured{Object: m}).DeepCopy().Object
}

// ManagedDeleting reports whether the recorded managed object of claim
// name is there and deleting.
func (c *Composition) ManagedDeleting(name string) bool {
	obj := c.manageds.StateAt(time.Now())[c.ns+"/"+name]
	return obj != nil && obj.GetDeletionTimestamp() != nil
}

// Until is the bound of the claims converging to want within conv.
func (c *Composition) Until(conv oracle.Convergence, want judge.Want) judge.Bound {
	return judge.Bound{Convergence: conv, History: judge.HistoryClaims, Want: want}
}
