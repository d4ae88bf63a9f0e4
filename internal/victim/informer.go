package victim

import (
	"context"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// Informer is a running shared informer whose handler records "ADD name",
// "UPDATE name" and "DELETE name".
type Informer struct {
	store cache.Store
	mu    sync.Mutex
	seen  []string
}

// Kind picks the informer from a factory.
type Kind func(informers.SharedInformerFactory) cache.SharedIndexInformer

// ConfigMaps and Pods are the kinds the tests watch.
var (
	ConfigMaps Kind = func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
		return f.Core().V1().ConfigMaps().Informer()
	}
	Pods Kind = func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
		return f.Core().V1().Pods().Informer()
	}
)

// Start runs an informer of kind in namespace through cfg and waits for
// it to sync; stop ends it. ok is false if it did not sync before ctx ended.
func Start(ctx context.Context, cfg *rest.Config, namespace string, kind Kind) (inf *Informer, stop func(), ok bool) {
	kube := kubernetes.NewForConfigOrDie(cfg)
	factory := informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithNamespace(namespace))
	si := kind(factory)
	v := &Informer{store: si.GetStore()}
	// AddEventHandler fails only on an informer already stopped.
	_, _ = si.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { v.note("ADD", o) },
		UpdateFunc: func(_, o any) { v.note("UPDATE", o) },
		DeleteFunc: func(o any) { v.note("DELETE", o) },
	})
	runCtx, cancel := context.WithCancel(context.Background())
	stop = func() { cancel(); factory.Shutdown() }
	factory.Start(runCtx.Done())
	waitCtx, waitCancel := context.WithCancel(ctx)
	defer waitCancel()
	if !cache.WaitForCacheSync(waitCtx.Done(), si.HasSynced) {
		stop()
		return nil, func() {}, false
	}
	return v, stop, true
}

func (v *Informer) note(kind string, obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	name := "?"
	if m, err := meta.Accessor(obj); err == nil {
		name = m.GetName()
	}
	v.mu.Lock()
	v.seen = append(v.seen, kind+" "+name)
	v.mu.Unlock()
}

// Saw reports whether the handler got entry, such as "ADD name".
func (v *Informer) Saw(entry string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Contains(v.seen, entry)
}

// Seen is everything the handler got, in order.
func (v *Informer) Seen() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Clone(v.seen)
}

// Has reports whether the informer's cache holds namespace/name.
func (v *Informer) Has(namespace, name string) bool {
	_, ok, _ := v.store.GetByKey(namespace + "/" + name)
	return ok
}

// Len is the number of objects in the cache.
func (v *Informer) Len() int { return len(v.store.ListKeys()) }
