package testenv

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega" //nolint:revive // Gomega reads best unqualified.
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/steadystate-dev/steadystate/suites/oracle"
)

// Record starts recording resource in namespace for the current spec: the
// recorder stops when the spec ends, and a failing spec keeps the history
// as <resource>-history.json in its artifacts and merges it into
// history.txt.
func Record(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, namespace string) *oracle.History {
	return RecordSelected(ctx, dyn, gvr, namespace, "")
}

// RecordSelected is Record for the objects a label selector matches.
func RecordSelected(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, namespace, selector string) *oracle.History {
	h, stop, err := oracle.RecordSelected(ctx, dyn, gvr, namespace, selector)
	Expect(err).NotTo(HaveOccurred(), "record %s in %s", gvr.Resource, namespace)
	ginkgo.DeferCleanup(stop)
	KeepOnFailure(gvr.Resource+"-history", func() any { return h.Records() })
	addToHistory(func() []oracle.Entry { return h.Entries(gvr.Resource) })
	m := specHistory()
	m.histories = append(m.histories, h)
	return h
}
