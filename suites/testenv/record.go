package testenv

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega" //nolint:revive // Gomega reads best unqualified.
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/steadystate-dev/steadystate/suites/oracle"
)

// Record starts recording resource in namespace for the current spec,
// named after the resource: the recorder stops when the spec ends, and the
// history is part of the spec's evidence (a failing spec keeps it in
// evidence.json and merges it into history.txt).
func Record(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, namespace string) *oracle.History {
	return RecordAs(ctx, gvr.Resource, dyn, gvr, namespace, "")
}

// RecordSelected is Record for the objects a label selector matches.
func RecordSelected(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, namespace, selector string) *oracle.History {
	return RecordAs(ctx, gvr.Resource, dyn, gvr, namespace, selector)
}

// RecordAs is RecordSelected under a name of the caller's (made unique in
// the spec with a #2 suffix if it is taken), which the judges read.
func RecordAs(ctx context.Context, name string, dyn dynamic.Interface, gvr schema.GroupVersionResource, namespace, selector string) *oracle.History {
	h, stop, err := oracle.RecordSelected(ctx, dyn, gvr, namespace, selector)
	Expect(err).NotTo(HaveOccurred(), "record %s in %s", gvr.Resource, namespace)
	ginkgo.DeferCleanup(stop)
	specEvidence().AddHistory(name, h)
	return h
}
