package foreground

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/steadystate-dev/steadystate/judge"
	"github.com/steadystate-dev/steadystate/subjectfile"
	"github.com/steadystate-dev/steadystate/suites/subject"
	"github.com/steadystate-dev/steadystate/suites/testenv"
)

// blocker holds up, from outside the subject, the deletion of what a
// claim owns, and lets it complete. That the block was in place is the
// premise foreground/deletion-blocked, judged from the spec's evidence;
// whether the subject's deletion then reached it is the subject's doing.
type blocker interface {
	block(ctx context.Context, claim string) error
	unblock(ctx context.Context) error
}

// externalBlocker makes the external system refuse deletes: the claim's
// managed object cannot finish deleting.
type externalBlocker struct {
	ext  subject.ExternalSystem
	spec *testenv.Spec
}

func (b externalBlocker) block(ctx context.Context, _ string) error {
	if err := b.ext.FailDeletes(ctx, true); err != nil {
		return err
	}
	judge.FactRefusingDeletes.Set(b.spec, time.Now())
	return nil
}

func (b externalBlocker) unblock(ctx context.Context) error {
	return b.ext.FailDeletes(ctx, false)
}

// finalizerBlocker adds the binding's finalizer to the objects a claim
// owns, found by the binding's selector, and removes it again; their
// recorded history is the premise's evidence.
type finalizerBlocker struct {
	dyn     dynamic.Interface
	binding subjectfile.Block
	gvr     schema.GroupVersionResource
	ns      string // the claim's; the objects' own when namespaced
	keys    []string
	spec    *testenv.Spec
}

func newFinalizerBlocker(ctx context.Context, spec *testenv.Spec, dyn dynamic.Interface, b subjectfile.Block, ns string) *finalizerBlocker {
	gv, err := schema.ParseGroupVersion(b.APIVersion)
	if err != nil {
		Fail(fmt.Sprintf("capabilities.foregroundComposite.block.apiVersion %q: %v", b.APIVersion, err))
	}
	f := &finalizerBlocker{dyn: dyn, binding: b, gvr: gv.WithResource(b.Resource), ns: ns, spec: spec}
	spec.RecordAs(ctx, judge.HistoryBlocked, dyn, f.gvr, f.objectNamespace(), "")
	// Never leave an object held: a failed spec must not strand it.
	DeferCleanup(func(ctx SpecContext) error { return f.unblock(ctx) })
	return f
}

func (f *finalizerBlocker) objectNamespace() string {
	if f.binding.Namespaced {
		return f.ns
	}
	return ""
}

func (f *finalizerBlocker) client() dynamic.ResourceInterface {
	if f.binding.Namespaced {
		return f.dyn.Resource(f.gvr).Namespace(f.ns)
	}
	return f.dyn.Resource(f.gvr)
}

// block waits (15s at most) for the claim's objects to exist, then adds
// the finalizer to each.
func (f *finalizerBlocker) block(ctx context.Context, claim string) error {
	selector, err := subjectfile.Expand(f.binding.Selector, subjectfile.Vars{Namespace: f.ns, Name: claim})
	if err != nil {
		return err
	}
	var names []string
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 15*time.Second, true, func(ctx context.Context) (bool, error) {
		list, err := f.client().List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return false, nil
		}
		names = names[:0]
		for _, o := range list.Items {
			names = append(names, o.GetName())
		}
		return len(names) > 0, nil
	})
	if err != nil {
		return fmt.Errorf("no %s matches %q (capabilities.foregroundComposite.block.selector) within 15s: nothing to block", f.gvr.Resource, selector)
	}
	for _, name := range names {
		err := testenv.EditFinalizers(ctx, f.client(), name, testenv.WithFinalizer(f.binding.Finalizer))
		if err != nil {
			return fmt.Errorf("add finalizer %s to %s %s: %w", f.binding.Finalizer, f.binding.Kind, name, err)
		}
		f.keys = append(f.keys, f.objectNamespace()+"/"+name)
	}
	judge.FactBlocked.Set(f.spec, f.keys)
	judge.FactBlockFinalizer.Set(f.spec, f.binding.Finalizer)
	return nil
}

func (f *finalizerBlocker) unblock(ctx context.Context) error {
	for _, key := range f.keys {
		_, name, _ := strings.Cut(key, "/")
		err := testenv.EditFinalizers(ctx, f.client(), name, testenv.WithoutFinalizer(f.binding.Finalizer))
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("remove finalizer %s from %s %s: %w", f.binding.Finalizer, f.binding.Kind, name, err)
		}
	}
	return nil
}
