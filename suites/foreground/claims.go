package foreground

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL reads best unqualified.
	. "github.com/onsi/gomega"    //nolint:revive // as above.
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	refv1 "github.com/steadystate-dev/steadystate/reference/api/v1alpha1"
	"github.com/steadystate-dev/steadystate/reference/external"
	"github.com/steadystate-dev/steadystate/suites/judge"
	"github.com/steadystate-dev/steadystate/suites/oracle"
	"github.com/steadystate-dev/steadystate/suites/subject"
	"github.com/steadystate-dev/steadystate/suites/subjectfile"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

var manageds = refv1.GroupVersion.WithResource("manageds")

// composition is the subject, what blocks its deletions, and the recorded
// history of one namespace's claims.
type composition struct {
	ns      string
	dyn     dynamic.Interface
	binding *subjectfile.ForegroundComposite
	claims  schema.GroupVersionResource
	history *oracle.History
	// ext and manageds are the reference controller's external system and
	// Managed history; nil for a subject whose binding has a Block.
	ext      *external.Client
	manageds *oracle.History
	blocker  blocker
}

func start(ctx context.Context, ns string) *composition {
	subj := subject.Composite()
	c := &composition{ns: ns, dyn: dynamic.NewForConfigOrDie(testenv.Get().REST), binding: subj.Claims()}
	gv, err := schema.ParseGroupVersion(c.binding.Template["apiVersion"].(string))
	Expect(err).NotTo(HaveOccurred(), "claim template apiVersion")
	c.claims = gv.WithResource(c.binding.Resource)
	if c.external() {
		Expect(gcResynced(ctx)).To(Succeed())
		url, ext := subject.External(ctx, ns)
		subj.StartComposite(ctx, ns, url)
		c.ext = ext
		c.blocker = externalBlocker{ext}
		c.manageds = testenv.Record(ctx, c.dyn, manageds, ns)
		testenv.KeepLog(judge.LogExternal, func() (any, error) { return c.ext.Log(context.Background()) })
	} else {
		subj.StartComposite(ctx, ns, "")
		// A controller may make its claim kind when it starts (Crossplane
		// offers it from an XRD).
		if err := testenv.Served(ctx, c.dyn, c.claims, ns, "capabilities.foregroundComposite.resource", time.Minute); err != nil {
			Fail(err.Error())
		}
		Expect(gcResynced(ctx)).To(Succeed())
		c.blocker = newFinalizerBlocker(ctx, c.dyn, c.binding.Block, ns)
	}
	c.history = testenv.RecordAs(ctx, judge.HistoryClaims, c.dyn, c.claims, ns, "")
	return c
}

// external reports whether the subject is the reference controller, whose
// deletions the harness's external system blocks.
func (c *composition) external() bool { return c.binding.Block.Resource == "" }

// claim is the binding's template named name; a reference claim also
// gets its external name.
func (c *composition) claim(name, externalName string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: runtimeCopy(c.binding.Template)}
	obj.SetName(name)
	obj.SetNamespace(c.ns)
	if c.external() {
		Expect(unstructured.SetNestedField(obj.Object, externalName, "spec", "externalName")).To(Succeed())
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

func (c *composition) configure(ctx context.Context, cfg external.Config) {
	Expect(c.ext.Configure(ctx, cfg)).To(Succeed())
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
