package oracle

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

// Record watches resource in namespace with an admin client (never
// through a fault proxy) and appends every event to a History, timestamped
// as it arrives. It returns once the initial state is in the history; stop
// ends the watch.
func Record(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, namespace string) (h *History, stop func(), err error) {
	return RecordSelected(ctx, dyn, gvr, namespace, "")
}

// RecordSelected is Record for the objects a label selector matches.
func RecordSelected(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, namespace, selector string) (h *History, stop func(), err error) {
	h = NewHistory()
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, namespace, func(o *metav1.ListOptions) { o.LabelSelector = selector })
	inf := factory.ForResource(gvr).Informer()
	add := func(typ string, obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return
		}
		h.Add(Event{At: time.Now(), Type: typ, Key: u.GetNamespace() + "/" + u.GetName(), Object: u.DeepCopy()})
	}
	inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { add("ADDED", o) },
		UpdateFunc: func(_, o any) { add("MODIFIED", o) },
		DeleteFunc: func(o any) { add("DELETED", o) },
	})
	runCtx, cancel := context.WithCancel(context.Background())
	factory.Start(runCtx.Done())
	stop = func() { cancel(); factory.Shutdown() }
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		stop()
		return nil, nil, fmt.Errorf("record %s in %s: the watch did not sync", gvr.Resource, namespace)
	}
	return h, stop, nil
}
