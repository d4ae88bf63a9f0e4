package oracle

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

// Record watches resource in namespace with an admin client (never
// through a fault proxy) and appends every event to a History, timestamped
// as it arrives. It returns once the initial state is in the history; stop
// ends the watch.
func Record(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, namespace string) (h *History, stop func(), err error) {
	return RecordSelected(ctx, dyn, gvr, namespace, "")
}

// RecordSelected is Record for the objects a label selector matches.
// Secrets are recorded Redacted: their keys and a hash of each value.
//
// It lists once, then watches from the list's resource version with a
// watch that resumes from the last event it saw after a disconnect, so no
// event is lost. An informer would relist after a watch error and skip the
// states in between; when this watch cannot resume (the API server no
// longer has that resource version: 410 Gone), the history is marked
// incomplete instead (History.Incomplete), and a spec judged on it is an
// error, never a pass.
func RecordSelected(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, namespace, selector string) (h *History, stop func(), err error) {
	h = NewHistory()
	if stop, err = RecordInto(ctx, h, dyn, gvr, namespace, selector); err != nil {
		return nil, nil, err
	}
	return h, stop, nil
}

// RecordInto is RecordSelected into a history the caller made (one that
// spools, say); stop also closes its spool.
func RecordInto(ctx context.Context, h *History, dyn dynamic.Interface, gvr schema.GroupVersionResource, namespace, selector string) (stop func(), err error) {
	res := dyn.Resource(gvr).Namespace(namespace)
	list, err := res.List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, fmt.Errorf("record %s in %s: %w", gvr.Resource, namespace, err)
	}
	now := time.Now()
	for i := range list.Items {
		u := &list.Items[i]
		h.Add(Event{At: now, Type: string(watch.Added), Key: key(u), Object: Redacted(u)})
	}
	runCtx, cancel := context.WithCancel(context.Background())
	lw := &cache.ListWatch{WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
		o.LabelSelector = selector
		return res.Watch(ctx, o)
	}}
	rw, err := watchtools.NewRetryWatcherWithContext(runCtx, list.GetResourceVersion(), lw)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("record %s in %s: %w", gvr.Resource, namespace, err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range rw.ResultChan() {
			switch ev.Type {
			case watch.Added, watch.Modified, watch.Deleted:
				if u, ok := ev.Object.(*unstructured.Unstructured); ok {
					h.Add(Event{At: time.Now(), Type: string(ev.Type), Key: key(u), Object: Redacted(u)})
				}
			case watch.Error:
				h.lose(fmt.Sprintf("the recorder's %s watch ended at %s and could not resume without a relist: %v",
					gvr.Resource, time.Now().Format("15:04:05.000"), apierrors.FromObject(ev.Object)))
				return
			}
		}
		if runCtx.Err() == nil {
			h.lose(fmt.Sprintf("the recorder's %s watch stopped at %s", gvr.Resource, time.Now().Format("15:04:05.000")))
		}
	}()
	stop = func() {
		cancel()
		rw.Stop()
		<-done
		if err := h.Close(); err != nil {
			h.lose("its spool could not be written: " + err.Error())
		}
	}
	return stop, nil
}

func key(u *unstructured.Unstructured) string { return u.GetNamespace() + "/" + u.GetName() }
