package testenv

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/steadystate-dev/steadystate/judge/oracle"
)

// Record starts recording resource in namespace for the spec,
// named after the resource: the recorder stops when the spec ends, and the
// history is part of the spec's evidence (a failing spec keeps it in
// evidence.json and merges it into history.txt).
func (s *Spec) Record(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, namespace string) *oracle.History {
	return s.RecordAs(ctx, gvr.Resource, dyn, gvr, namespace, "")
}

// RecordSelected is Record for the objects a label selector matches.
func (s *Spec) RecordSelected(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, namespace, selector string) *oracle.History {
	return s.RecordAs(ctx, gvr.Resource, dyn, gvr, namespace, selector)
}

// RecordAs is RecordSelected under a name of the caller's (made unique in
// the spec with a #2 suffix if it is taken), which the judges read.
func (s *Spec) RecordAs(ctx context.Context, name string, dyn dynamic.Interface, gvr schema.GroupVersionResource, namespace, selector string) *oracle.History {
	// The history keeps its newest events in memory and the rest in
	// the spec's spool folder.
	h := oracle.NewHistory()
	f, err := os.CreateTemp(s.spool, "history-*.jsonl")
	Expect(err).NotTo(HaveOccurred())
	f.Close()
	Expect(h.Spool(f.Name(), oracle.DefaultWindow)).To(Succeed())
	stop, err := oracle.RecordInto(ctx, h, dyn, gvr, namespace, selector)
	Expect(err).NotTo(HaveOccurred(), "record %s in %s", gvr.Resource, namespace)
	ginkgo.DeferCleanup(stop)
	s.ev.AddHistory(name, h)
	return h
}

// Served waits (within timeout) until gvr can be listed in namespace: a
// bound resource may be made by the subject itself when it starts. The
// error names the binding field that named it.
func Served(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, namespace, field string, timeout time.Duration) error {
	var first error // the API server's answer, not the poll's own deadline
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		_, err := dyn.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{Limit: 1})
		if first == nil {
			first = err
		}
		return err == nil, nil
	})
	if err != nil {
		return fmt.Errorf("%s: %s is not served by the cluster within %s (%v); expected a resource the subject's manifests or the subject itself define", field, gvr, timeout, first)
	}
	return nil
}
